CREATE TABLE `outbox_counts` (
	`kind` text NOT NULL,
	`state` text NOT NULL,
	`n` integer NOT NULL,
	PRIMARY KEY(`kind`, `state`)
);
--> statement-breakpoint
CREATE TABLE `submission_counts` (
	`verdict` text NOT NULL,
	`language` text NOT NULL,
	`n` integer NOT NULL,
	PRIMARY KEY(`verdict`, `language`)
);

--> statement-breakpoint
-- Completed rows only: the others are few (each client's queued rows are capped) and read through the
-- claim index; a job fires one of these, at its completion, and its other writes none. Kept by the
-- rows' own changes in their transactions, so a count is never behind its rows, whatever writes them
-- (the core, the retention sweep, an interview's room runs deleted with it).
CREATE TRIGGER `submission_counts_insert` AFTER INSERT ON `submissions` WHEN new.`state` = 'completed' BEGIN
	INSERT INTO `submission_counts` (`verdict`, `language`, `n`) VALUES (coalesce(new.`verdict`, ''), new.`language`, 1)
		ON CONFLICT (`verdict`, `language`) DO UPDATE SET `n` = `n` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `submission_counts_delete` AFTER DELETE ON `submissions` WHEN old.`state` = 'completed' BEGIN
	UPDATE `submission_counts` SET `n` = `n` - 1 WHERE `verdict` = coalesce(old.`verdict`, '') AND `language` = old.`language`;
END;
--> statement-breakpoint
CREATE TRIGGER `submission_counts_leave` AFTER UPDATE OF `state`, `verdict`, `language` ON `submissions`
	WHEN old.`state` = 'completed' AND (new.`state` IS NOT 'completed' OR old.`verdict` IS NOT new.`verdict` OR old.`language` IS NOT new.`language`) BEGIN
	UPDATE `submission_counts` SET `n` = `n` - 1 WHERE `verdict` = coalesce(old.`verdict`, '') AND `language` = old.`language`;
END;
--> statement-breakpoint
CREATE TRIGGER `submission_counts_enter` AFTER UPDATE OF `state`, `verdict`, `language` ON `submissions`
	WHEN new.`state` = 'completed' AND (old.`state` IS NOT 'completed' OR old.`verdict` IS NOT new.`verdict` OR old.`language` IS NOT new.`language`) BEGIN
	INSERT INTO `submission_counts` (`verdict`, `language`, `n`) VALUES (coalesce(new.`verdict`, ''), new.`language`, 1)
		ON CONFLICT (`verdict`, `language`) DO UPDATE SET `n` = `n` + 1;
END;
--> statement-breakpoint
-- the completed rows stored before this migration, counted once
INSERT INTO `submission_counts` (`verdict`, `language`, `n`)
	SELECT coalesce(`verdict`, ''), `language`, count(*) FROM `submissions` WHERE `state` = 'completed' GROUP BY 1, 2;
--> statement-breakpoint
-- The outbox keeps its delivered rows: every row is counted by kind and state, each change of either
-- moving its count, in the row's own transaction.
CREATE TRIGGER `outbox_counts_insert` AFTER INSERT ON `outbox` BEGIN
	INSERT INTO `outbox_counts` (`kind`, `state`, `n`) VALUES (new.`kind`, new.`state`, 1)
		ON CONFLICT (`kind`, `state`) DO UPDATE SET `n` = `n` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `outbox_counts_delete` AFTER DELETE ON `outbox` BEGIN
	UPDATE `outbox_counts` SET `n` = `n` - 1 WHERE `kind` = old.`kind` AND `state` = old.`state`;
END;
--> statement-breakpoint
CREATE TRIGGER `outbox_counts_update` AFTER UPDATE OF `kind`, `state` ON `outbox`
	WHEN old.`kind` IS NOT new.`kind` OR old.`state` IS NOT new.`state` BEGIN
	UPDATE `outbox_counts` SET `n` = `n` - 1 WHERE `kind` = old.`kind` AND `state` = old.`state`;
	INSERT INTO `outbox_counts` (`kind`, `state`, `n`) VALUES (new.`kind`, new.`state`, 1)
		ON CONFLICT (`kind`, `state`) DO UPDATE SET `n` = `n` + 1;
END;
--> statement-breakpoint
-- the outbox rows stored before this migration, counted once
INSERT INTO `outbox_counts` (`kind`, `state`, `n`) SELECT `kind`, `state`, count(*) FROM `outbox` GROUP BY 1, 2;
