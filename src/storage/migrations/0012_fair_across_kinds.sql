-- Room runs become class 0 (were 1, after v3 synchronous requests at 0); every API's submission, synchronous
-- (was 0) or not (was 2), is class 1, where clients share the rounds; the indexes order a round's synchronous rows first.
UPDATE `submissions` SET `priority` = CASE `priority` WHEN 1 THEN 0 ELSE 1 END;--> statement-breakpoint
DROP INDEX `submissions_claim`;--> statement-breakpoint
DROP INDEX `submissions_client`;--> statement-breakpoint
CREATE INDEX `submissions_claim` ON `submissions` (`state`,`priority`,`fair_round`,`async`,`id`);--> statement-breakpoint
CREATE INDEX `submissions_client` ON `submissions` (`client_id`,`state`,`priority`,`async`,`fair_round`);