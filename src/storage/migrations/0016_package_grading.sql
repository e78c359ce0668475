ALTER TABLE `problems` ADD `grading_json` text;--> statement-breakpoint
ALTER TABLE `submissions` ADD `grading_json` text;--> statement-breakpoint
ALTER TABLE `submissions` ADD `graded_json` text;