"""Forms (domain 2.9, 4.9): definitions, the public definition and submit path, submissions and their
versions, distribution by e-mail and one-time passwords for anonymous respondents."""
