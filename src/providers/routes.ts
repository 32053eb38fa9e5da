// The route table of DESIGN §2: which upstream a request goes to, the path it is sent with, and the
// wire-format adapter for its response stream.

import { anthropicMessages } from './anthropic-messages.ts';
import { generic } from './generic.ts';
import { openaiChat } from './openai-chat.ts';
import { openaiResponses } from './openai-responses.ts';
import type { Provider, StreamAdapter } from './types.ts';

export interface ResolvedRoute {
  provider: Provider;
  /** Path and query to send upstream (before the upstream's own base path is prepended). */
  target: string;
  /** Path without query, for adapter choice and logs. */
  pathname: string;
  adapter: StreamAdapter;
}

/** Resolves a raw request target (`/anthropic/v1/messages?beta=true`), or undefined when no route matches. */
export function resolveRoute(rawTarget: string): ResolvedRoute | undefined {
  let provider: Provider;
  let target: string;
  if (hasPrefix(rawTarget, '/anthropic')) {
    provider = 'anthropic';
    target = rawTarget.slice('/anthropic'.length);
  } else if (hasPrefix(rawTarget, '/openai')) {
    provider = 'openai';
    target = rawTarget.slice('/openai'.length);
  } else if (hasPrefix(rawTarget, '/v1')) {
    target = rawTarget;
    const p = pathOf(target);
    provider = p === '/v1/messages' || p.startsWith('/v1/messages/') || p === '/v1/complete' ? 'anthropic' : 'openai';
  } else return undefined;
  if (!target.startsWith('/')) target = `/${target}`;
  const pathname = pathOf(target);
  return { provider, target, pathname, adapter: adapterFor(provider, pathname) };
}

function hasPrefix(target: string, prefix: string): boolean {
  if (!target.startsWith(prefix)) return false;
  const next = target[prefix.length];
  return next === undefined || next === '/' || next === '?';
}

function pathOf(target: string): string {
  const q = target.indexOf('?');
  return q === -1 ? target : target.slice(0, q);
}

function adapterFor(provider: Provider, pathname: string): StreamAdapter {
  const p = pathname.replace(/\/+$/, '');
  if (provider === 'anthropic' && p === '/v1/messages') return anthropicMessages;
  if (provider === 'openai' && p === '/v1/chat/completions') return openaiChat;
  if (provider === 'openai' && p === '/v1/responses') return openaiResponses;
  return generic;
}
