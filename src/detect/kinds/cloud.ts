// Credential kinds of cloud and infrastructure platforms: AWS (key id with the secret key next to it,
// session tokens, Bedrock), Google Cloud, Azure, Alibaba, Tencent, DigitalOcean, Cloudflare, Heroku,
// Fly.io, Vercel, Netlify, Neon, Supabase, Databricks, Doppler, HashiCorp Vault, Tailscale, 1Password,
// observability vendors and a few databases-as-a-service.

import { ALNUM, B64_PAD, B64URL, charset, DIGIT, HEX, HEX_LOWER, LOWER_NUM, UPPER_NUM, WORD } from '../charset.ts';
import { prefixed } from '../define.ts';
import { ANCHOR, compileGrammar, matchGrammar, run, type Span } from '../grammar.ts';
import type { Confirm, Kind } from '../kind.ts';
import { findAwsSecretKey } from './aws-secret.ts';
import { confirmAzureSas } from './azure-sas.ts';

// AWS documents [A-Z0-9]{16} after the prefix (long-term ids in practice use the base32 alphabet).
const AWS_ID = compileGrammar({ parts: [ANCHOR, run(UPPER_NUM, 16)] });
const span: Span = { start: 0, end: 0, verdict: 'format' };

/** An access key id, and the secret access key written next to it (both are reported). */
const confirmAwsKeyId: Confirm = (buf, anchorStart, anchorEnd, emit) => {
  if (!matchGrammar(buf, anchorStart, anchorEnd, AWS_ID, span)) return;
  const { start, end } = span;
  emit(start, end);
  const secret = findAwsSecretKey(buf, start, end);
  if (secret !== undefined) emit.as('aws-secret-access-key', secret[0], secret[1]);
};

/** base64 of 64 bytes (88 characters with `==`); some copies drop the padding. */
const base64Of64Bytes = (buf: Uint8Array, _start: number, end: number, anchorEnd: number): boolean => {
  const len = end - anchorEnd;
  const pad = (buf[end - 1] === 0x3d ? 1 : 0) + (buf[end - 2] === 0x3d ? 1 : 0);
  for (let i = anchorEnd; i < end - pad; i++) if (buf[i] === 0x3d) return false;
  return (len === 88 && pad === 2) || (len === 86 && pad === 0);
};

/** base64 of 32 bytes: 43 characters and one `=`. */
const base64Of32Bytes = (buf: Uint8Array, _start: number, end: number, anchorEnd: number): boolean => {
  if (end - anchorEnd !== 44 || buf[end - 1] !== 0x3d) return false;
  for (let i = anchorEnd; i < end - 1; i++) if (buf[i] === 0x3d) return false;
  return true;
};

const VAULT_TOKENS = 'https://developer.hashicorp.com/vault/docs/concepts/tokens#token-prefixes';

export const CLOUD_KINDS: readonly Kind[] = [
  {
    name: 'aws-access-key-id',
    title: 'AWS access key id (long-term AKIA, temporary ASIA)',
    anchors: ['AKIA', 'ASIA', 'ABIA', 'ACCA'],
    confirm: confirmAwsKeyId,
    follows: 'A-Z0-9',
    // Key ids and the secret keys next to them are base32 / base64: no character JSON escapes.
    escapable: false,
    checksum: false,
    source: 'https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_identifiers.html#identifiers-unique-ids',
  },
  {
    name: 'aws-secret-access-key',
    title: 'AWS secret access key, within 256 bytes of its access key id',
    anchors: [],
    checksum: false,
    recall: true,
    source: 'https://docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_access-keys.html',
  },
  // STS session tokens are base64 of a binary blob that starts with these bytes.
  prefixed('aws-session-token', 'AWS STS session token', ['IQoJb3JpZ2luX2Vj', 'FwoGZXIvYXdzE'], [run(B64_PAD, 100, 4000)], 'https://docs.aws.amazon.com/STS/latest/APIReference/API_Credentials.html', {
    structured: true,
  }),
  prefixed(
    'aws-bedrock-api-key',
    'Amazon Bedrock API key (long-term ABSK, short-term presigned)',
    // base64 of "BedrockAPIKey-", and the short-term prefix followed by base64 of "bedrock.amazonaws.com".
    ['ABSKQmVkcm9ja0FQSUtleS', 'bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t'],
    [run(B64_PAD, 100, 4000)],
    'https://docs.aws.amazon.com/bedrock/latest/userguide/api-keys.html',
    { structured: true },
  ),
  prefixed('google-api-key', 'Google API key (Gemini, Maps, Firebase …)', ['AIza'], [run(B64URL, 35)], 'https://cloud.google.com/docs/authentication/api-keys'),
  prefixed('google-oauth-client-secret', 'Google OAuth client secret', ['GOCSPX-'], [run(B64URL, 28)], 'https://developers.google.com/identity/protocols/oauth2'),
  prefixed('google-oauth-access-token', 'Google OAuth 2.0 access token', ['ya29.'], [run(charset('A-Za-z0-9_.-'), 30, 2048)], 'https://developers.google.com/identity/protocols/oauth2'),
  prefixed('google-oauth-refresh-token', 'Google OAuth 2.0 refresh token', ['1//0'], [run(B64URL, 40, 512)], 'https://developers.google.com/identity/protocols/oauth2'),
  {
    name: 'azure-ad-client-secret',
    title: 'Microsoft Entra ID (Azure AD) application client secret',
    anchors: Array.from({ length: 10 }, (_, d) => `${d}Q~`),
    grammars: [{ parts: [run('a-zA-Z0-9_~.-', 3), ANCHOR, run('a-zA-Z0-9_~.-', 31, 34)] }],
    checksum: false,
    source: 'https://learn.microsoft.com/en-us/entra/identity-platform/how-to-add-credentials',
  },
  prefixed('azure-storage-account-key', 'Azure Storage account key in a connection string', ['AccountKey='], [run(B64_PAD, 86, 88)], 'https://learn.microsoft.com/en-us/azure/storage/common/storage-configure-connection-string', {
    check: base64Of64Bytes,
    valueAfterAnchor: true,
    structured: true,
    recall: true,
    edge: '',
  }),
  prefixed('azure-shared-access-key', 'Azure Service Bus / Event Hubs / IoT Hub shared access key', ['SharedAccessKey='], [run(B64_PAD, 44)], 'https://learn.microsoft.com/en-us/azure/service-bus-messaging/service-bus-sas', {
    check: base64Of32Bytes,
    valueAfterAnchor: true,
    structured: true,
    recall: true,
    edge: '',
  }),
  prefixed('azure-redis-key', 'Azure Cache for Redis access key in a connection string', ['.redis.cache.windows.net:6380,password=', '.redis.cache.windows.net,password='], [run(B64_PAD, 43, 44)], 'https://learn.microsoft.com/en-us/azure/azure-cache-for-redis/cache-configure#access-keys', {
    valueAfterAnchor: true,
    structured: true,
    recall: true,
    edge: '',
  }),
  {
    name: 'azure-sas-signature',
    title: 'Azure shared access signature (the sig= of a SAS URL)',
    anchors: ['?sig=', '&sig='],
    confirm: confirmAzureSas,
    follows: 'A-Za-z0-9+/%',
    // base64, percent-encoded in the URL: no character JSON escapes.
    escapable: false,
    checksum: false,
    recall: true,
    source: 'https://learn.microsoft.com/en-us/rest/api/storageservices/create-service-sas',
  },
  prefixed('alibaba-access-key-id', 'Alibaba Cloud AccessKey ID', ['LTAI'], [run(ALNUM, 12, 24)], 'https://www.alibabacloud.com/help/en/ram/user-guide/create-an-accesskey-pair'),
  prefixed('tencent-secret-id', 'Tencent Cloud SecretId', ['AKID'], [run(ALNUM, 32)], 'https://www.tencentcloud.com/document/product/598/32675'),
  prefixed('digitalocean-token', 'DigitalOcean personal access, OAuth or refresh token', ['dop_v1_', 'doo_v1_', 'dor_v1_'], [run(HEX_LOWER, 64)], 'https://docs.digitalocean.com/reference/api/create-personal-access-token/'),
  prefixed('cloudflare-api-token', 'Cloudflare user or account API token, API key (new format)', ['cfut_', 'cfat_', 'cfk_'], [run(ALNUM, 40, 50)], 'https://developers.cloudflare.com/fundamentals/api/get-started/create-token/'),
  prefixed('cloudflare-origin-ca-key', 'Cloudflare Origin CA key', ['v1.0-'], [run(HEX_LOWER, 24), '-', run(HEX_LOWER, 146)], 'https://developers.cloudflare.com/ssl/origin-configuration/origin-ca/', {
    // The same 24 + 146 layout in letters and digits (copies in tests and docs).
    alternatives: [[run(ALNUM, 24), '-', run(ALNUM, 146)]],
  }),
  prefixed('heroku-api-key', 'Heroku API key (HRKU- format)', ['HRKU-AA'], [run(B64URL, 58)], 'https://devcenter.heroku.com/articles/authentication'),
  prefixed('flyio-token', 'Fly.io access token (macaroon)', ['fm1r_', 'fm1a_', 'fm2_'], [run(B64_PAD, 60, 4000)], 'https://fly.io/docs/security/tokens/', { structured: true }),
  prefixed('flyio-legacy-token', 'Fly.io personal access token (legacy fo1_)', ['fo1_'], [run(B64URL, 43)], 'https://fly.io/docs/security/tokens/'),
  prefixed('vercel-token', 'Vercel personal, integration, app or client token', ['vcp_', 'vci_', 'vca_', 'vcr_', 'vck_'], [run(ALNUM, 24, 64)], 'https://vercel.com/docs/rest-api#creating-an-access-token'),
  prefixed('netlify-token', 'Netlify personal access token', ['nfp_'], [run(ALNUM, 36)], 'https://docs.netlify.com/api/get-started/#authentication'),
  prefixed('neon-api-key', 'Neon API key', ['napi_'], [run(LOWER_NUM, 64)], 'https://neon.tech/docs/manage/api-keys'),
  prefixed('supabase-access-token', 'Supabase personal access token', ['sbp_'], [run(LOWER_NUM, 40)], 'https://supabase.com/docs/reference/api/introduction'),
  prefixed('supabase-secret-key', 'Supabase secret API key', ['sb_secret_'], [run(B64URL, 24, 64)], 'https://supabase.com/docs/guides/api/api-keys'),
  // The `-<digits>` suffix first: tried the other way round, the bare layout took the token without it.
  prefixed('databricks-token', 'Databricks personal access token', ['dapi'], [run(HEX_LOWER, 32), '-', run(DIGIT, 1, 2)], 'https://docs.databricks.com/en/dev-tools/auth/pat.html', {
    alternatives: [[run(HEX_LOWER, 32)]],
  }),
  prefixed(
    'doppler-token',
    'Doppler personal, service, CLI, service-account, SCIM or audit token',
    ['dp.pt.', 'dp.st.', 'dp.ct.', 'dp.sa.', 'dp.scim.', 'dp.audit.'],
    [run(ALNUM, 40, 44)],
    'https://docs.doppler.com/reference/auth-token-formats',
    { alternatives: [[run(LOWER_NUM, 2, 32), '.', run(ALNUM, 40, 44)]] },
  ),
  prefixed('vault-service-token', 'HashiCorp Vault service token', ['hvs.'], [run(B64URL, 90, 200)], VAULT_TOKENS, { alternatives: [[run(B64URL, 24, 89)]] }),
  prefixed('vault-batch-token', 'HashiCorp Vault batch token', ['hvb.'], [run(charset('A-Za-z0-9_.-'), 130, 300)], VAULT_TOKENS),
  prefixed('vault-recovery-token', 'HashiCorp Vault recovery token', ['hvr.'], [run(B64URL, 24, 200)], VAULT_TOKENS),
  prefixed('tailscale-key', 'Tailscale auth key, API access token or OAuth client secret', ['tskey-'], [run(charset('a-z'), 3, 8), '-', run(ALNUM, 10, 32), '-', run(ALNUM, 20, 64)], 'https://tailscale.com/kb/1085/auth-keys', {
    // OAuth client secrets and newer keys: word characters (`_`) in the id and the secret.
    alternatives: [[run(ALNUM, 10, 32), '-', run(ALNUM, 20, 128)], [run(charset('a-z'), 3, 8), '-', run(WORD, 10, 128), '-', run(WORD, 10, 128)]],
  }),
  prefixed('1password-service-account-token', '1Password service account token', ['ops_eyJ'], [run(charset('A-Za-z0-9+/_=-'), 200, 2000)], 'https://developer.1password.com/docs/service-accounts/', { structured: true }),
  prefixed('1password-secret-key', '1Password account Secret Key', ['A3-'], [run(UPPER_NUM, 6), '-', run(UPPER_NUM, 6), '-', run(UPPER_NUM, 5), '-', run(UPPER_NUM, 5), '-', run(UPPER_NUM, 5), '-', run(UPPER_NUM, 5)], 'https://support.1password.com/secret-key-security/', {
    alternatives: [[run(UPPER_NUM, 6), '-', run(UPPER_NUM, 11), '-', run(UPPER_NUM, 5), '-', run(UPPER_NUM, 5), '-', run(UPPER_NUM, 5)]],
  }),
  prefixed('dynatrace-token', 'Dynatrace API token', ['dt0c01.'], [run(ALNUM, 24), '.', run(ALNUM, 64)], 'https://docs.dynatrace.com/docs/manage/identity-access-management/access-tokens-and-oauth-clients/access-tokens#token-format'),
  // Issued in upper case; any 27 letters and digits are taken.
  prefixed('newrelic-user-key', 'New Relic user API key', ['NRAK-'], [run(ALNUM, 27)], 'https://docs.newrelic.com/docs/apis/intro-apis/new-relic-api-keys/'),
  prefixed('newrelic-insert-key', 'New Relic Insights insert key', ['NRII-'], [run(B64URL, 32)], 'https://docs.newrelic.com/docs/apis/intro-apis/new-relic-api-keys/'),
  prefixed('grafana-cloud-token', 'Grafana Cloud access policy token', ['glc_'], [run(B64_PAD, 32, 400)], 'https://grafana.com/docs/grafana-cloud/security-and-account-management/authentication-and-permissions/access-policies/'),
  prefixed('grafana-service-account-token', 'Grafana service account token', ['glsa_'], [run(ALNUM, 32), '_', run(HEX, 8)], 'https://grafana.com/docs/grafana/latest/administration/service-accounts/'),
  // base64 of {"k":" — the legacy API keys are base64 JSON.
  prefixed('grafana-api-key', 'Grafana API key (legacy)', ['eyJrIjoi'], [run(B64_PAD, 50, 200)], 'https://grafana.com/docs/grafana/latest/administration/service-accounts/migrate-api-keys/', { structured: true }),
  prefixed('sentry-org-token', 'Sentry organization auth token', ['sntrys_eyJ'], [run(B64_PAD, 100, 400), '_', run(charset('A-Za-z0-9+/_-'), 43)], 'https://docs.sentry.io/account/auth-tokens/', {
    structured: true,
    alternatives: [[run(B64_PAD, 100, 400)]],
  }),
  prefixed('sentry-user-token', 'Sentry user auth token', ['sntryu_'], [run(HEX_LOWER, 64)], 'https://docs.sentry.io/account/auth-tokens/'),
  prefixed('planetscale-token', 'PlanetScale password, service token or OAuth token', ['pscale_pw_', 'pscale_tkn_', 'pscale_oauth_'], [run(charset('A-Za-z0-9_=.-'), 32, 64)], 'https://planetscale.com/docs/concepts/service-tokens'),
  prefixed('clickhouse-cloud-key', 'ClickHouse Cloud API key secret', ['4b1d'], [run(ALNUM, 38)], 'https://clickhouse.com/docs/cloud/manage/openapi'),
  prefixed('defined-networking-token', 'Defined Networking (Managed Nebula) API token', ['dnkey-'], [run(charset('a-z0-9=_'), 26), '-', run(charset('a-z0-9=_-'), 52)], 'https://docs.defined.net/guides/automation/api-keys/'),
  prefixed('scalingo-token', 'Scalingo API token', ['tk-us-'], [run(B64URL, 48)], 'https://doc.scalingo.com/platform/cli/start#authentication'),
  prefixed('infracost-token', 'Infracost API key', ['ico-'], [run(ALNUM, 32)], 'https://www.infracost.io/docs/integrations/environment_variables/'),
  prefixed('prefect-api-key', 'Prefect Cloud API key', ['pnu_'], [run(ALNUM, 36)], 'https://docs.prefect.io/v3/manage/cloud/manage-users/api-keys'),
  prefixed('openshift-token', 'OpenShift OAuth access token', ['sha256~'], [run(B64URL, 43)], 'https://docs.openshift.com/container-platform/latest/authentication/managing-oauth-access-tokens.html'),
  prefixed('posthog-personal-api-key', 'PostHog personal API key', ['phx_'], [run(charset('A-Za-z0-9_'), 40, 50)], 'https://posthog.com/docs/api#private-endpoint-authentication'),
  prefixed('render-api-key', 'Render API key', ['rnd_'], [run(ALNUM, 32)], 'https://render.com/docs/api#1-create-an-api-key'),
];
