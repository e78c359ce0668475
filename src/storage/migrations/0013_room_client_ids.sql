CREATE TABLE `room_client_ids` (
	`interview_id` text NOT NULL,
	`client_id` integer NOT NULL,
	`session_id` integer NOT NULL,
	PRIMARY KEY(`interview_id`, `client_id`),
	FOREIGN KEY (`session_id`) REFERENCES `room_sessions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `room_client_ids_session` ON `room_client_ids` (`session_id`);