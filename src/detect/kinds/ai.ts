// Credential kinds of model providers and AI tooling: OpenAI, Anthropic, Hugging Face, Groq, xAI,
// Perplexity, OpenRouter, Replicate, NVIDIA, LangSmith, Langfuse and Pinecone.

import { ALNUM, B64URL, DIGIT, HEX_LOWER } from '../charset.ts';
import { prefixed } from '../define.ts';
import { ANCHOR, run } from '../grammar.ts';
import type { Kind } from '../kind.ts';

const OPENAI_KEYS = 'https://platform.openai.com/docs/api-reference/authentication';
const ANTHROPIC_KEYS = 'https://docs.anthropic.com/en/api/overview#authentication';
const UUID = [run(HEX_LOWER, 8), '-', run(HEX_LOWER, 4), '-', run(HEX_LOWER, 4), '-', run(HEX_LOWER, 4), '-', run(HEX_LOWER, 12)] as const;

export const AI_KINDS: readonly Kind[] = [
  prefixed('openai-project-key', 'OpenAI project API key', ['sk-proj-', 'sk-None-'], [run(B64URL, 40, 250)], OPENAI_KEYS),
  prefixed('openai-service-account-key', 'OpenAI service-account API key', ['sk-svcacct-'], [run(B64URL, 40, 250)], OPENAI_KEYS),
  prefixed('openai-admin-key', 'OpenAI admin API key', ['sk-admin-'], [run(B64URL, 40, 250)], 'https://platform.openai.com/docs/api-reference/administration'),
  {
    name: 'openai-legacy-key',
    title: 'OpenAI user API key (legacy sk-…T3BlbkFJ… format)',
    // "T3BlbkFJ" is base64 of "OpenAI" and sits in the middle of these keys.
    anchors: ['T3BlbkFJ'],
    grammars: [{ parts: ['sk-', run(ALNUM, 20), ANCHOR, run(ALNUM, 20)] }],
    checksum: false,
    source: OPENAI_KEYS,
  },
  prefixed('anthropic-api-key', 'Anthropic API key', ['sk-ant-api0'], [run(DIGIT, 1), '-', run(B64URL, 95)], ANTHROPIC_KEYS),
  prefixed('anthropic-admin-key', 'Anthropic Admin API key', ['sk-ant-admin0'], [run(DIGIT, 1), '-', run(B64URL, 95)], 'https://docs.anthropic.com/en/api/administration-api'),
  prefixed('anthropic-oauth-token', 'Anthropic OAuth access or refresh token (Claude Code sign-in)', ['sk-ant-oat0', 'sk-ant-ort0'], [run(DIGIT, 1), '-', run(B64URL, 80, 120)], 'https://docs.anthropic.com/en/docs/claude-code/iam'),
  prefixed('huggingface-token', 'Hugging Face user access token', ['hf_'], [run(ALNUM, 34)], 'https://huggingface.co/docs/hub/security-tokens'),
  prefixed('huggingface-org-token', 'Hugging Face organization API token (legacy)', ['api_org_'], [run(ALNUM, 34)], 'https://huggingface.co/docs/hub/security-tokens'),
  prefixed('groq-api-key', 'Groq API key', ['gsk_'], [run(ALNUM, 52)], 'https://console.groq.com/docs/api-keys'),
  prefixed('xai-api-key', 'xAI (Grok) API key', ['xai-'], [run(ALNUM, 80)], 'https://docs.x.ai/docs/api-reference#authentication'),
  prefixed('perplexity-api-key', 'Perplexity API key', ['pplx-'], [run(ALNUM, 48)], 'https://docs.perplexity.ai/guides/getting-started'),
  prefixed('openrouter-api-key', 'OpenRouter API key', ['sk-or-v1-'], [run(HEX_LOWER, 64)], 'https://openrouter.ai/docs/api-reference/authentication'),
  prefixed('replicate-api-token', 'Replicate API token', ['r8_'], [run(ALNUM, 37)], 'https://replicate.com/docs/reference/http#authentication'),
  prefixed('nvidia-api-key', 'NVIDIA NGC / build.nvidia.com API key', ['nvapi-'], [run(B64URL, 64)], 'https://docs.api.nvidia.com/nim/docs/api-quickstart'),
  prefixed('langsmith-api-key', 'LangSmith personal access token or service key', ['lsv2_pt_', 'lsv2_sk_'], [run(HEX_LOWER, 32), '_', run(HEX_LOWER, 10)], 'https://docs.smith.langchain.com/administration/how_to_guides/organization_management/create_account_api_key'),
  prefixed('langfuse-secret-key', 'Langfuse secret key', ['sk-lf-'], [...UUID], 'https://langfuse.com/faq/all/where-are-langfuse-api-keys', { structured: true }),
  prefixed('pinecone-api-key', 'Pinecone API key', ['pcsk_'], [run(ALNUM, 4, 10), '_', run(ALNUM, 40, 80)], 'https://docs.pinecone.io/guides/projects/manage-api-keys'),
];
