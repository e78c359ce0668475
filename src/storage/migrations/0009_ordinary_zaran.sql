CREATE TABLE `similarity_pairs` (
	`report_id` integer NOT NULL,
	`rank` integer NOT NULL,
	`left_he_id` text NOT NULL,
	`right_he_id` text NOT NULL,
	`similarity` real NOT NULL,
	`longest_fragment` integer NOT NULL,
	`overlap` integer NOT NULL,
	`fragments_json` text NOT NULL,
	PRIMARY KEY(`report_id`, `rank`),
	FOREIGN KEY (`report_id`) REFERENCES `similarity_reports`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `similarity_reports` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`public_id` text NOT NULL,
	`view_token` text NOT NULL,
	`client_id` integer NOT NULL,
	`problem_id` text,
	`he_ids_json` text,
	`language` text NOT NULL,
	`min_similarity` real NOT NULL,
	`template` text,
	`callback_url` text,
	`submissions_json` text NOT NULL,
	`submission_count` integer NOT NULL,
	`state` text DEFAULT 'queued' NOT NULL,
	`attempt` integer DEFAULT 0 NOT NULL,
	`progress` real DEFAULT 0 NOT NULL,
	`stage` text,
	`pairs_above` integer,
	`histogram_json` text,
	`failure` text,
	`max_rss_kb` integer,
	`duration_ms` integer,
	`created_at` integer NOT NULL,
	`started_at` integer,
	`completed_at` integer,
	FOREIGN KEY (`client_id`) REFERENCES `clients`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `similarity_reports_publicId_unique` ON `similarity_reports` (`public_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `similarity_reports_viewToken_unique` ON `similarity_reports` (`view_token`);--> statement-breakpoint
CREATE INDEX `similarity_reports_claim` ON `similarity_reports` (`state`,`id`);--> statement-breakpoint
CREATE INDEX `similarity_reports_client` ON `similarity_reports` (`client_id`,`id`);--> statement-breakpoint
ALTER TABLE `submissions` ADD `problem_id` text;--> statement-breakpoint
CREATE INDEX `submissions_problem` ON `submissions` (`client_id`,`problem_id`);