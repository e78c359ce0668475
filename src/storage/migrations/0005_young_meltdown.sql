CREATE TABLE `problem_tests` (
	`problem_id` integer NOT NULL,
	`position` integer NOT NULL,
	`name` text NOT NULL,
	`input_hash` text NOT NULL,
	`output_hash` text NOT NULL,
	`input_bytes` integer NOT NULL,
	`output_bytes` integer NOT NULL,
	`points` real DEFAULT 1 NOT NULL,
	`time_limit_sec` real,
	PRIMARY KEY(`problem_id`, `position`),
	FOREIGN KEY (`problem_id`) REFERENCES `problems`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `problem_tests_input` ON `problem_tests` (`input_hash`);--> statement-breakpoint
CREATE INDEX `problem_tests_output` ON `problem_tests` (`output_hash`);--> statement-breakpoint
CREATE TABLE `problems` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`public_id` text NOT NULL,
	`client_id` integer NOT NULL,
	`name` text NOT NULL,
	`checker_json` text NOT NULL,
	`time_limit_sec` real,
	`memory_limit_kb` integer,
	`test_count` integer NOT NULL,
	`total_bytes` integer NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`client_id`) REFERENCES `clients`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `problems_publicId_unique` ON `problems` (`public_id`);--> statement-breakpoint
CREATE INDEX `problems_client` ON `problems` (`client_id`);