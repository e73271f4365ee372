"""The KPI actor: one KPI's definition, values, status, alerts and targets, decided and committed in turns."""
