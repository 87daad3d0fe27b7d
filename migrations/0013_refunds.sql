-- Refunds and disputes (issue 12). A bundle session records Stripe's payment intent when it is
-- credited, so a charge.refunded or charge.dispute.* event (which names the charge's payment
-- intent) finds the credit; sessions completed before this have none and are found through
-- Stripe's API. token_accounts.debt is the TokenAccount object's debt, copied for the admin
-- list of accounts in debt (the object is the authority; debt_version orders the copies).
-- As drizzle-kit generated it.
ALTER TABLE `checkout_sessions` ADD `payment_intent_id` text;--> statement-breakpoint
CREATE UNIQUE INDEX `checkout_sessions_payment_intent` ON `checkout_sessions` (`payment_intent_id`);--> statement-breakpoint
ALTER TABLE `token_accounts` ADD `debt` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `token_accounts` ADD `debt_version` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `token_accounts_debt_idx` ON `token_accounts` (`debt`);