-- Web sessions (issue 13): the browser's opaque session cookie maps to a row here (only the
-- SHA-256 of its id is stored). login_attempts is gone: login limits live in the RateLimiter
-- Durable Object (durable/rate-limiter.ts).
CREATE TABLE `web_sessions` (
	`id_hash` text PRIMARY KEY NOT NULL,
	`user_uuid` text NOT NULL,
	`token_type` text NOT NULL,
	`session_version` integer NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`user_agent` text
);
--> statement-breakpoint
CREATE INDEX `web_sessions_user_idx` ON `web_sessions` (`user_uuid`,`created_at`);--> statement-breakpoint
DROP TABLE `login_attempts`;