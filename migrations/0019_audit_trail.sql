-- The audit trail (issue 15): who acted, on whom, the request and its geolocation
-- (Cloudflare's cf country, region, city), and indexes for the audit page's filters and the
-- retention purge (workers/audit-service/retention.ts).
ALTER TABLE `audit_events` ADD `actor_uuid` text;--> statement-breakpoint
ALTER TABLE `audit_events` ADD `target_uuid` text;--> statement-breakpoint
ALTER TABLE `audit_events` ADD `request_id` text;--> statement-breakpoint
ALTER TABLE `audit_events` ADD `country` text;--> statement-breakpoint
ALTER TABLE `audit_events` ADD `region` text;--> statement-breakpoint
ALTER TABLE `audit_events` ADD `city` text;--> statement-breakpoint
CREATE INDEX `audit_events_actor_idx` ON `audit_events` (`actor_uuid`,`occurred_at`);--> statement-breakpoint
CREATE INDEX `audit_events_target_idx` ON `audit_events` (`target_uuid`,`occurred_at`);--> statement-breakpoint
CREATE INDEX `audit_events_time_idx` ON `audit_events` (`occurred_at`);--> statement-breakpoint
-- Moderation events written before 0019 carried the actor as user_uuid and the target in data.
UPDATE `audit_events` SET `actor_uuid` = `user_uuid`, `target_uuid` = json_extract(`data`, '$.targetUuid') WHERE `topic` >= 'moderation.' AND `topic` < 'moderation/' AND json_valid(`data`);
