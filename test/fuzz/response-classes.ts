// The response generator classes, by name (the name is what FUZZ_SEED and the known-failure list use).

import * as g from './gen/response-cases.ts';
import type { ResponseGen } from './gen/response-cases.ts';
import type { RequestEnv } from './harness/request-case.ts';
import { describeResponseCase, runResponseCase, type ResponseCase } from './harness/response-case.ts';
import type { FuzzClass } from './harness/runner.ts';
import { createPlaceholderMap } from './oracle/placeholder-map.ts';

const GENERATORS: ReadonlyArray<readonly [string, string, ResponseGen]> = [
  ['anthropic-sse', 'Anthropic Messages SSE: text, thinking, tool_use input_json_delta', g.anthropicSse],
  ['chat-sse', 'Chat Completions SSE: content, reasoning_content, tool_calls arguments', g.chatSse],
  ['responses-sse', 'Responses SSE: text, reasoning, function and custom tool calls, every done/completed copy', g.responsesSse],
  ['generic-sse-json', 'generic SSE with JSON data and nested JSON text', g.genericSseJson],
  ['generic-sse-text', 'generic SSE with plain-text data', g.genericSseText],
  ['generic-sse-keys', 'generic SSE whose JSON data has placeholders as keys', g.genericSseKeys],
  ['json-body', 'non-streamed JSON: the three formats and generic documents (nested JSON text, keys)', g.jsonBody],
  ['json-long-string', 'JSON with a string longer than 1 MiB before a placeholder', g.jsonLongString],
  ['text-body', 'plain-text bodies', g.textBody],
  ['json-as-text', 'JSON labelled text/plain', g.jsonAsText],
  ['no-content-type', 'SSE, JSON or text with no content-type and a 1-16 byte first chunk', g.noContentType],
  ['sse-raw-bytes', 'events with big integers, \\u escapes, \\/ and blanks next to placeholders', g.sseRawBytes],
  ['sse-multiline', 'JSON data spread over several data: lines', g.sseMultiline],
  ['sse-line-endings', 'CRLF and CR line ends, comments, id: and retry: lines', g.sseLineEndings],
  ['surrogate-split', 'deltas cut between the halves of surrogate pairs', g.surrogateSplit],
  ['chat-finish-split', 'Chat: the finish_reason chunk carries the last text piece', g.chatFinishSplit],
  ['prose-brackets', 'prose opening with [ or { full of quotes, in deltas and done copies', g.proseBrackets],
  ['tool-args-nested-json', 'tool arguments whose strings hold JSON text, 1-3 levels', g.toolArgsNestedJson],
  ['tool-args-keys', 'placeholders as keys in tool arguments', g.toolArgsKeys],
  ['response-gzip', 'gzip-compressed SSE or JSON in random chunks', g.responseGzip],
  ['gemini-sse', 'Gemini alt=sse: text and thought parts per candidate, whole functionCall.args, thoughtSignature', g.geminiSse],
  ['gemini-array', 'Gemini streamed JSON array: the same chunks as array elements', g.geminiArray],
  ['ollama-ndjson', 'Ollama /api/chat and /api/generate NDJSON: content/thinking fragments, whole tool_calls', g.ollamaNdjson],
];

/** The names of the response classes. */
export const RESPONSE_CLASS_NAMES: readonly string[] = GENERATORS.map(([name]) => name);

/** Every response class, bound to a running proxy and recorder. */
export function responseClasses(env: RequestEnv): Array<FuzzClass<ResponseCase>> {
  const mapOf = (values: string[]) => createPlaceholderMap(env.proxy.key, values);
  return GENERATORS.map(([name, about, gen]) => ({
    name,
    about,
    generate: (rng) => gen(rng, mapOf),
    run: (c) => runResponseCase(env, c),
    describe: describeResponseCase,
  }));
}
