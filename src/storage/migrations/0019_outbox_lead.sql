-- v4's CODE_COMPILED of a job that ended before it was reported goes in its REQUEST_COMPLETED's row,
-- sent once just before it (jobs/outbox.ts sendLead): one row, one look and one record a job instead of two.
ALTER TABLE `outbox` ADD `lead_json` text;
