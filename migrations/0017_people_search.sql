-- Finding people by nickname prefix, case-insensitively (GET /api/social-service/people):
-- a range on lower(nickname) uses this index instead of scanning users.
CREATE INDEX `users_nickname_lower_idx` ON `users` (lower("nickname"));