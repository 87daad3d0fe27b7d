-- App Store billing grace end on subscriptions (level-rule.ts), an index to count a person's
-- bots (sign-up-bot's limit), and e-mail types only linking sets: every `discord` or `spotify`
-- address so far was chosen by a client (no provider linking exists yet), so it becomes
-- `personal` and stops unlocking Discord-only avatars. The UPDATE is hand-written.
ALTER TABLE `subscriptions` ADD `grace_end_date` integer;--> statement-breakpoint
CREATE INDEX `users_owner_idx` ON `users` (`owner_uuid`);--> statement-breakpoint
UPDATE `user_emails` SET `type` = 'personal' WHERE `type` IN ('discord', 'spotify');
