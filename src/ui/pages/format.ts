// How the dashboard's pages write times, durations and sources.

/** `2026-11-27 16:40:12 UTC`. */
export function formatTime(ms: number | undefined): string {
  if (ms === undefined || ms === 0) return '—';
  return `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** `3s ago`, `4 min ago`, `2 h ago`. */
export function formatAgo(ms: number | undefined, now = Date.now()): string {
  if (ms === undefined || ms === 0) return 'never';
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86400)} d ago`;
}

/** `3s`, `4m 05s`, `2h 03m`. */
export function formatUptime(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  const h = Math.floor(m / 60);
  return `${h}h ${String(m % 60).padStart(2, '0')}m`;
}

/** A secret's source in words: `vault`, `env file /p/.env`, `environment (NAME)`, `discovered ./.env`. */
export function formatSource(source: string): string {
  if (source === 'vault') return 'vault';
  if (source.startsWith('env-file:')) return `env file ${source.slice('env-file:'.length)}`;
  if (source.startsWith('env:')) return 'environment variable';
  if (source.startsWith('discovered:env:')) return 'discovered in the environment';
  if (source.startsWith('discovered:')) return `discovered ${source.slice('discovered:'.length)}`;
  return source;
}
