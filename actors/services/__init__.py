"""Services: organization-level behaviour run as plain transactions (accounts, credentials, activity,
notifications, ...). Importing this package registers every procedure implementation."""
