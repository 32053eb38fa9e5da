// Credential kinds of code hosts, CI/CD and package registries: GitHub, GitLab, Atlassian, npm, PyPI,
// RubyGems, Clojars, NuGet, Docker Hub, JFrog, Buildkite, SonarQube, Sourcegraph, Octopus, Terraform
// Cloud, Pulumi and Harness.

import { ALNUM, B64URL, charset, DIGIT, HEX, HEX_LOWER, LOWER_NUM, UPPER_NUM, WORD } from '../charset.ts';
import { hasBase62Crc32 } from '../checksum.ts';
import { prefixed } from '../define.ts';
import { ANCHOR, run } from '../grammar.ts';
import type { Kind } from '../kind.ts';

const GITHUB_FORMATS = 'https://github.blog/2021-04-05-behind-githubs-new-authentication-token-formats/';
const GITLAB_PREFIXES = 'https://docs.gitlab.com/security/tokens/#token-prefixes';

/** `prefix` + 30 random base62 + 6-character base62 CRC32 of the random part. */
const githubCrc = (buf: Uint8Array, _start: number, end: number, anchorEnd: number): boolean => hasBase62Crc32(buf, anchorEnd, end);

/** The token GitHub's REST documentation shows in its examples (its checksum does not hold). */
const GITHUB_DOCS_TOKEN = 'ghp_16C7e42F292c6912E7710c838347Ae178B4a';

/**
 * `prefix` + 30 random + 6 CRC (a token that fails the CRC is `unverified`); `long` adds the layouts of
 * app tokens longer than 40 characters: an installation id and a JWT (`ghs_12345_eyJ…`), or up to 255
 * word characters (GitHub documents the prefixes and that lengths will grow, not a length).
 */
const github = (name: string, title: string, anchor: string, long = false): Kind =>
  prefixed(name, title, [anchor], [run(ALNUM, 36)], GITHUB_FORMATS, {
    verify: githubCrc,
    ...(anchor === 'ghp_' ? { examples: [GITHUB_DOCS_TOKEN] } : {}),
    ...(long ? { alternatives: [[run(DIGIT, 1, 20), '_', 'eyJ', run(charset('A-Za-z0-9_.-'), 40, 4096)], [run(WORD, 37, 255)]] } : {}),
  });

const gitlab = (name: string, title: string, anchors: readonly string[], length: number): Kind =>
  prefixed(name, title, anchors, [run(B64URL, length)], GITLAB_PREFIXES);

export const SOURCE_CONTROL_KINDS: readonly Kind[] = [
  github('github-classic-pat', 'GitHub classic personal access token', 'ghp_'),
  github('github-oauth-token', 'GitHub OAuth access token', 'gho_'),
  github('github-user-token', 'GitHub App user-to-server token', 'ghu_', true),
  github('github-app-token', 'GitHub App installation (server-to-server) token', 'ghs_', true),
  github('github-refresh-token', 'GitHub App refresh token', 'ghr_'),
  prefixed(
    'github-fine-grained-pat',
    'GitHub fine-grained personal access token',
    ['github_pat_'],
    [run(ALNUM, 22), '_', run(ALNUM, 59)],
    'https://docs.github.com/en/authentication/keeping-your-account-and-data-secure/about-authentication-to-github#githubs-token-formats',
    // 82 word characters in any arrangement (the layout gitleaks' rule accepts).
    { alternatives: [[run(WORD, 82)]] },
  ),
  prefixed('gitlab-pat', 'GitLab personal, project or group access token', ['glpat-'], [run(B64URL, 27, 310), '.', run(DIGIT, 2), '.', run(LOWER_NUM, 7, 9)], GITLAB_PREFIXES, {
    // Routable tokens (GitLab 17.x; up to 316 characters) carry a base64 payload, a version and a
    // checksum; older ones are 20 characters.
    alternatives: [[run(B64URL, 27, 310), '.', run(LOWER_NUM, 9)], [run(B64URL, 20, 22)]],
  }),
  gitlab('gitlab-deploy-token', 'GitLab deploy token', ['gldt-'], 20),
  prefixed('gitlab-runner-token', 'GitLab runner authentication or registration token', ['glrt-', 'GR1348941'], [run(B64URL, 20)], GITLAB_PREFIXES, {
    alternatives: [[run(B64URL, 27, 300), '.', run(LOWER_NUM, 9)]],
  }),
  prefixed('gitlab-pipeline-trigger-token', 'GitLab pipeline trigger token', ['glptt-'], [run(HEX_LOWER, 40)], GITLAB_PREFIXES),
  prefixed('gitlab-agent-token', 'GitLab agent for Kubernetes token', ['glagent-'], [run(B64URL, 50)], GITLAB_PREFIXES),
  prefixed('gitlab-oauth-secret', 'GitLab OAuth application secret', ['gloas-'], [run(B64URL, 64)], GITLAB_PREFIXES),
  prefixed('gitlab-ci-job-token', 'GitLab CI/CD job token', ['glcbt-'], [run(HEX, 1, 5), '_', run(B64URL, 20)], GITLAB_PREFIXES),
  gitlab('gitlab-feed-token', 'GitLab feed, incoming mail, SCIM or feature-flag client token', ['glft-', 'glimt-', 'glsoat-', 'glffct-'], 20),
  prefixed('atlassian-api-token', 'Atlassian (Jira, Confluence) API token', ['ATATT3', 'ATCTT3'], [run(B64URL, 150, 300), '=', run(HEX, 8)], 'https://support.atlassian.com/atlassian-account/docs/manage-api-tokens-for-your-atlassian-account/', {
    // Shorter copies keep the fixed `3xFfG` start and the `=` + 8-character tail.
    alternatives: [['xFfG', run(B64URL, 8, 300), '=', run(ALNUM, 8)]],
  }),
  prefixed('bitbucket-app-password', 'Bitbucket app password', ['ATBB'], [run(ALNUM, 32, 40)], 'https://support.atlassian.com/bitbucket-cloud/docs/app-passwords/'),
  prefixed('npm-token', 'npm access token', ['npm_'], [run(ALNUM, 36)], 'https://github.blog/2021-09-23-announcing-npms-new-access-token-format/', { verify: githubCrc }),
  prefixed(
    'pypi-token',
    'PyPI / TestPyPI API token (macaroon)',
    // base64 of the macaroon's location: "pypi.org" and "test.pypi.org".
    ['pypi-AgEIcHlwaS5vcmc', 'pypi-AgENdGVzdC5weXBpLm9yZw'],
    [run(B64URL, 50, 1500)],
    'https://pypi.org/help/#apitoken',
  ),
  // Issued as 48 hex digits; any 48 letters and digits are taken (copies in tests and docs).
  prefixed('rubygems-api-key', 'RubyGems API key', ['rubygems_'], [run(ALNUM, 48)], 'https://guides.rubygems.org/api-key-scopes/'),
  prefixed('clojars-token', 'Clojars deploy token', ['CLOJARS_'], [run(LOWER_NUM, 60)], 'https://github.com/clojars/clojars-web/wiki/Deploy-Tokens'),
  prefixed('nuget-api-key', 'NuGet.org API key', ['oy2'], [run(LOWER_NUM, 43)], 'https://learn.microsoft.com/en-us/nuget/nuget-org/scoped-api-keys'),
  prefixed('dockerhub-pat', 'Docker Hub personal or organization access token', ['dckr_pat_', 'dckr_oat_'], [run(B64URL, 27, 32)], 'https://docs.docker.com/security/for-developers/access-tokens/'),
  prefixed('jfrog-api-key', 'JFrog Artifactory API key', ['AKCp'], [run(ALNUM, 69)], 'https://jfrog.com/help/r/jfrog-platform-administration-documentation/api-keys'),
  // base64 of "reftkn:01:" starts every reference token (64 characters); the anchor is its first five,
  // base64 of "ref" and the next bits, so copies that keep only the start and the length are found too.
  prefixed('jfrog-reference-token', 'JFrog Artifactory reference token', ['cmVmd'], [run(ALNUM, 59)], 'https://jfrog.com/help/r/jfrog-platform-administration-documentation/access-tokens'),
  prefixed('buildkite-token', 'Buildkite API access token', ['bkua_'], [run(LOWER_NUM, 40)], 'https://buildkite.com/docs/apis/managing-api-tokens'),
  prefixed('sonarqube-token', 'SonarQube user, project or analysis token', ['squ_', 'sqp_', 'sqa_'], [run(HEX_LOWER, 40)], 'https://docs.sonarsource.com/sonarqube-server/latest/user-guide/managing-tokens/'),
  prefixed('sourcegraph-token', 'Sourcegraph access token', ['sgp_'], [run(HEX, 16), '_', run(HEX, 40)], 'https://sourcegraph.com/docs/cli/how-tos/creating_an_access_token', {
    alternatives: [['local_', run(HEX, 40)], [run(HEX, 40)]],
  }),
  prefixed('octopus-deploy-api-key', 'Octopus Deploy API key', ['API-'], [run(UPPER_NUM, 26)], 'https://octopus.com/docs/octopus-rest-api/how-to-create-an-api-key'),
  {
    name: 'terraform-cloud-token',
    title: 'HCP Terraform / Terraform Enterprise API token',
    anchors: ['.atlasv1.'],
    grammars: [{ parts: [run(ALNUM, 14), ANCHOR, run(B64URL, 60, 70)] }],
    checksum: false,
    source: 'https://developer.hashicorp.com/terraform/cloud-docs/users-teams-organizations/api-tokens',
  },
  // Issued as 40 hex digits; any 40 letters and digits are taken (copies in tests and docs).
  prefixed('pulumi-access-token', 'Pulumi access token', ['pul-'], [run(ALNUM, 40)], 'https://www.pulumi.com/docs/pulumi-cloud/access-management/access-tokens/'),
  prefixed('harness-token', 'Harness personal or service-account token', ['pat.', 'sat.'], [run(B64URL, 22), '.', run(ALNUM, 24), '.', run(ALNUM, 20)], 'https://developer.harness.io/docs/platform/automation/api/add-and-manage-api-keys/'),
];
