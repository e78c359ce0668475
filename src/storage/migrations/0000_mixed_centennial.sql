CREATE TABLE `clients` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`secret_hash` text NOT NULL,
	`secret_hint` text NOT NULL,
	`quota` integer,
	`used` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`revoked_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `clients_secretHash_unique` ON `clients` (`secret_hash`);--> statement-breakpoint
CREATE TABLE `companies` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`interviews_enabled` integer DEFAULT true NOT NULL,
	`credits` integer DEFAULT 0 NOT NULL,
	`webhook_secret` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `interview_feedback` (
	`interview_id` text NOT NULL,
	`interviewer_email` text NOT NULL,
	`result` text,
	`ratings` text NOT NULL,
	`eval_params_ratings` text NOT NULL,
	`submitted_at` integer NOT NULL,
	PRIMARY KEY(`interview_id`, `interviewer_email`),
	FOREIGN KEY (`interview_id`) REFERENCES `interviews`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `interview_participants` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`interview_id` text NOT NULL,
	`role` text NOT NULL,
	`full_name` text NOT NULL,
	`email` text NOT NULL,
	`feedback_redirect_url` text,
	`position` integer NOT NULL,
	`token_hash` text NOT NULL,
	`created_at` integer NOT NULL,
	`revoked_at` integer,
	FOREIGN KEY (`interview_id`) REFERENCES `interviews`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `interview_participants_tokenHash_unique` ON `interview_participants` (`token_hash`);--> statement-breakpoint
CREATE INDEX `interview_participants_interview` ON `interview_participants` (`interview_id`,`revoked_at`);--> statement-breakpoint
CREATE TABLE `interviews` (
	`id` text PRIMARY KEY NOT NULL,
	`company_id` integer NOT NULL,
	`created_by` integer NOT NULL,
	`title` text NOT NULL,
	`start_at` integer NOT NULL,
	`start_offset_min` integer NOT NULL,
	`candidate_name` text NOT NULL,
	`candidate_email` text NOT NULL,
	`candidate_contact` text,
	`resume_file` text,
	`eval_params` text NOT NULL,
	`callback_url` text,
	`inform_candidate` integer DEFAULT true NOT NULL,
	`inform_interviewers` integer DEFAULT true NOT NULL,
	`sequence` integer DEFAULT 0 NOT NULL,
	`started_at` integer,
	`ended_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`deleted_at` integer,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `interviews_company` ON `interviews` (`company_id`);--> statement-breakpoint
CREATE INDEX `interviews_due` ON `interviews` (`ended_at`,`start_at`);--> statement-breakpoint
CREATE TABLE `meta` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `outbox` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`kind` text NOT NULL,
	`target` text NOT NULL,
	`body` text NOT NULL,
	`content_type` text NOT NULL,
	`headers_json` text,
	`group_key` text,
	`dedupe_key` text,
	`state` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_at` integer NOT NULL,
	`last_error` text,
	`created_at` integer NOT NULL,
	`delivered_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `outbox_dedupeKey_unique` ON `outbox` (`dedupe_key`);--> statement-breakpoint
CREATE INDEX `outbox_due` ON `outbox` (`state`,`next_at`);--> statement-breakpoint
CREATE INDEX `outbox_group` ON `outbox` (`group_key`,`state`);--> statement-breakpoint
CREATE TABLE `outbox_attempts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`outbox_id` integer NOT NULL,
	`attempt` integer NOT NULL,
	`at` integer NOT NULL,
	`ms` integer NOT NULL,
	`error` text
);
--> statement-breakpoint
CREATE INDEX `outbox_attempts_row` ON `outbox_attempts` (`outbox_id`);--> statement-breakpoint
CREATE TABLE `rate_counters` (
	`subject` text NOT NULL,
	`window` text NOT NULL,
	`started_at` integer NOT NULL,
	`count` integer NOT NULL,
	PRIMARY KEY(`subject`, `window`)
);
--> statement-breakpoint
CREATE TABLE `room_sessions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`token_hash` text NOT NULL,
	`participant_id` integer NOT NULL,
	`interview_id` text NOT NULL,
	`csrf_token` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`participant_id`) REFERENCES `interview_participants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`interview_id`) REFERENCES `interviews`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `room_sessions_tokenHash_unique` ON `room_sessions` (`token_hash`);--> statement-breakpoint
CREATE INDEX `room_sessions_expiry` ON `room_sessions` (`expires_at`);--> statement-breakpoint
CREATE TABLE `room_states` (
	`interview_id` text PRIMARY KEY NOT NULL,
	`language` text NOT NULL,
	`code` text NOT NULL,
	`input` text NOT NULL,
	`version` integer NOT NULL,
	`last_run_json` text,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`interview_id`) REFERENCES `interviews`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `submissions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`he_id` text NOT NULL,
	`code_id` text NOT NULL,
	`client_id` integer NOT NULL,
	`api` text NOT NULL,
	`compile_only` integer DEFAULT false NOT NULL,
	`async` integer DEFAULT false NOT NULL,
	`priority` integer DEFAULT 1 NOT NULL,
	`language` text NOT NULL,
	`lang_requested` text NOT NULL,
	`source` text NOT NULL,
	`input` text DEFAULT '' NOT NULL,
	`time_limit_sec` real NOT NULL,
	`memory_limit_kb` integer NOT NULL,
	`request_id_json` text,
	`context_json` text,
	`callback_url` text,
	`state` text DEFAULT 'queued' NOT NULL,
	`attempt` integer DEFAULT 0 NOT NULL,
	`compile_status` text,
	`verdict` text,
	`status_detail` text,
	`signal` text,
	`exit_code` integer,
	`time_used_sec` real,
	`memory_used_kb` integer,
	`stdout` text,
	`stderr` text,
	`failure` text,
	`created_at` integer NOT NULL,
	`started_at` integer,
	`compiled_at` integer,
	`completed_at` integer,
	FOREIGN KEY (`client_id`) REFERENCES `clients`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `submissions_heId_unique` ON `submissions` (`he_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `submissions_codeId_unique` ON `submissions` (`code_id`);--> statement-breakpoint
CREATE INDEX `submissions_claim` ON `submissions` (`state`,`priority`,`id`);--> statement-breakpoint
CREATE INDEX `submissions_client` ON `submissions` (`client_id`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` integer NOT NULL,
	`email` text NOT NULL,
	`role` text NOT NULL,
	`client_id_hash` text NOT NULL,
	`client_id_hint` text NOT NULL,
	`secret_hash` text NOT NULL,
	`created_at` integer NOT NULL,
	`revoked_at` integer,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_clientIdHash_unique` ON `users` (`client_id_hash`);--> statement-breakpoint
CREATE UNIQUE INDEX `users_active_email` ON `users` (`company_id`,`email`) WHERE revoked_at is null;