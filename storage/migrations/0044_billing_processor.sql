-- Billing with a real processor (issue 14, Stripe): when the processor's newest applied event about the
-- subscription was created, so an older event arriving late does not undo newer state; and the index the
-- processor's callbacks and the period-end sweeper find a subscription by.

ALTER TABLE subscriptions ADD COLUMN processor_event_at timestamptz;
CREATE UNIQUE INDEX subscriptions_processor_subscription ON subscriptions (processor_subscription_id)
    WHERE processor_subscription_id IS NOT NULL;
CREATE INDEX subscriptions_processor_customer ON subscriptions (processor_customer_id)
    WHERE processor_customer_id IS NOT NULL;
CREATE INDEX subscriptions_cancel_due ON subscriptions (current_period_end) WHERE cancel_at_period_end;
