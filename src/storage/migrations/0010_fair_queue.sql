DROP INDEX `submissions_claim`;--> statement-breakpoint
DROP INDEX `submissions_client`;--> statement-breakpoint
ALTER TABLE `submissions` ADD `interview_id` text;--> statement-breakpoint
ALTER TABLE `submissions` ADD `fair_round` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `submissions_interview` ON `submissions` (`interview_id`);--> statement-breakpoint
CREATE INDEX `submissions_claim` ON `submissions` (`state`,`priority`,`fair_round`,`id`);--> statement-breakpoint
CREATE INDEX `submissions_client` ON `submissions` (`client_id`,`state`,`priority`,`fair_round`);--> statement-breakpoint
ALTER TABLE `clients` ADD `room_of_company` integer;--> statement-breakpoint
CREATE UNIQUE INDEX `clients_roomOfCompany_unique` ON `clients` (`room_of_company`);