-- One token bundle per product, and the amount a bundle checkout sells fixed on its session.
-- Before the unique index can exist, products sold by several bundles keep only their oldest
-- (lowest id): the one the webhook was already crediting, so no buyer's outcome changes. The
-- later duplicates never credited anything; they are deleted (their R2 thumbnails, if any,
-- stay behind unreferenced). The DELETE is hand-written; the rest is as drizzle-kit generated.
DROP INDEX `token_bundles_product_idx`;--> statement-breakpoint
DELETE FROM `token_bundles` WHERE `id` NOT IN (SELECT MIN(`id`) FROM `token_bundles` GROUP BY `product_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `token_bundles_product_unique` ON `token_bundles` (`product_id`);--> statement-breakpoint
ALTER TABLE `checkout_sessions` ADD `token_amount` integer;
