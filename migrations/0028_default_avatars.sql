-- Issue 20: every account wears an avatar. Accounts made from now on get one at sign-up
-- (workers/merch-service/avatars/default-avatar.ts); this gives the accounts without one a
-- free avatar (PUBLIC, not Discord-only, those with art first), spread over them by id.
-- Nothing changes when there is no such avatar yet (a fresh database: the seed comes later).
WITH free AS (
  SELECT slug,
    row_number() OVER (ORDER BY image_key IS NULL, slug) - 1 AS i,
    count(*) OVER () AS n
  FROM avatars
  WHERE status = 'PUBLIC' AND discord_only = 0
)
UPDATE users SET avatar_id = (SELECT slug FROM free WHERE free.i = users.id % free.n)
WHERE avatar_id IS NULL AND EXISTS (SELECT 1 FROM free);
