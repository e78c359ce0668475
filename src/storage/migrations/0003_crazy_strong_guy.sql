CREATE TABLE `submission_tests` (
	`submission_id` integer NOT NULL,
	`position` integer NOT NULL,
	`name` text NOT NULL,
	`input` text NOT NULL,
	`expected_output` text NOT NULL,
	`points` real DEFAULT 1 NOT NULL,
	`time_limit_sec` real,
	`status` text,
	`status_detail` text,
	`time_used_sec` real,
	`memory_used_kb` integer,
	`exit_code` integer,
	`signal` text,
	`earned_points` real,
	`checker_message` text,
	`stdout` text,
	`attempt` integer,
	PRIMARY KEY(`submission_id`, `position`),
	FOREIGN KEY (`submission_id`) REFERENCES `submissions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `submissions` ADD `checker_json` text;--> statement-breakpoint
ALTER TABLE `submissions` ADD `stop_on_first_failure` integer DEFAULT false NOT NULL;