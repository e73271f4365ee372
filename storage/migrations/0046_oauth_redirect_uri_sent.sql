-- Whether the authorization request named its redirect_uri (RFC 6749 4.1.3): only then must the token request
-- repeat it. An app with a single registered URI may leave it out, and the grant still records the URI the code
-- went to. Codes issued before this migration were all checked as sent (their 60 s are long over anyway).
ALTER TABLE oauth_grants ADD COLUMN redirect_uri_sent boolean NOT NULL DEFAULT true;
