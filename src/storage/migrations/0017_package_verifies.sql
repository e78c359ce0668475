CREATE TABLE `package_verifies` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`public_id` text NOT NULL,
	`client_id` integer NOT NULL,
	`problem_id` integer NOT NULL,
	`state` text NOT NULL,
	`done` integer DEFAULT 0 NOT NULL,
	`total` integer,
	`stage` text NOT NULL,
	`runs_json` text DEFAULT '[]' NOT NULL,
	`report_json` text,
	`failure` text,
	`created_at` integer NOT NULL,
	`started_at` integer,
	`completed_at` integer,
	FOREIGN KEY (`client_id`) REFERENCES `clients`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`problem_id`) REFERENCES `problems`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `package_verifies_publicId_unique` ON `package_verifies` (`public_id`);--> statement-breakpoint
CREATE INDEX `package_verifies_client_state` ON `package_verifies` (`client_id`,`state`);--> statement-breakpoint
CREATE INDEX `package_verifies_problem` ON `package_verifies` (`problem_id`);--> statement-breakpoint
ALTER TABLE `problems` ADD `package_hash` text;--> statement-breakpoint
ALTER TABLE `problems` ADD `package_bytes` integer;--> statement-breakpoint
CREATE INDEX `problems_package` ON `problems` (`package_hash`);--> statement-breakpoint
ALTER TABLE `submission_tests` ADD `score` real;