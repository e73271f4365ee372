"""Forms (docs/forms-and-approvals.md): definitions, the public definition and submit path, submissions and their
versions, distribution by e-mail and one-time passwords for anonymous respondents."""
