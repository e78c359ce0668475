ALTER TABLE `outbox` ADD `subject_id` text;--> statement-breakpoint
UPDATE `outbox` SET `subject_id` = substr(`group_key`, 8) WHERE `kind` = 'interview_report' AND `group_key` LIKE 'report:%';--> statement-breakpoint
UPDATE `outbox` SET `subject_id` = substr(`group_key`, 12) WHERE `kind` = 'callback' AND `group_key` LIKE 'submission:%';
