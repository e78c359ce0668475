ALTER TABLE `submissions` ADD `protocol_json` text;--> statement-breakpoint
ALTER TABLE `submissions` ADD `job_spec_json` text;--> statement-breakpoint
ALTER TABLE `submissions` ADD `raw_result_json` text;