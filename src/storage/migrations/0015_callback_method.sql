ALTER TABLE `outbox` ADD `method` text;--> statement-breakpoint
UPDATE `outbox` SET `kind` = 'callback', `method` = 'PUT' WHERE `kind` = 'callback_put';
