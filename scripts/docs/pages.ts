// The generated documentation pages, by path from the repository root.

import { commandsPage } from './command-reference.ts';
import { configurationPage } from './config-reference.ts';

export async function generatedPages(): Promise<Record<string, string>> {
  return { 'docs/configuration.md': configurationPage(), 'docs/commands.md': await commandsPage() };
}
