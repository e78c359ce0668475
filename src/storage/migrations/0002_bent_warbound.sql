CREATE TABLE `admins` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`token_hash` text NOT NULL,
	`created_at` integer NOT NULL,
	`revoked_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `admins_name_unique` ON `admins` (`name`);--> statement-breakpoint
CREATE UNIQUE INDEX `admins_tokenHash_unique` ON `admins` (`token_hash`);