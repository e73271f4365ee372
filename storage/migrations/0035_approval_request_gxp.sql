-- A request keeps the regime it opened under (docs/decisions.md "Signatures are a record"): the flow's
-- `gxp_required` as it was when the request opened, by which every decision on it is judged (signature
-- required, e-mailed links refused), whatever the flow's flag says later.
ALTER TABLE approval_requests ADD COLUMN gxp_required boolean;
UPDATE approval_requests r SET gxp_required = f.gxp_required FROM approval_flows f WHERE f.id = r.flow_id;
ALTER TABLE approval_requests ALTER COLUMN gxp_required SET NOT NULL;
