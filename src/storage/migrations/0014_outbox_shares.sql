ALTER TABLE `outbox` ADD `share` text;--> statement-breakpoint
ALTER TABLE `outbox` ADD `destination` text;--> statement-breakpoint
UPDATE `outbox` SET `share` = 'email', `destination` = 'smtp' WHERE `kind` = 'email';
