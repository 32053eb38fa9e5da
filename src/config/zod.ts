// The one module (with zod-api.ts, the names it re-exports) that imports zod: schemas across the project
// (config, detection, restore, watermark) take `z` from here.

import * as z from './zod-api.ts';

// Each schema is parsed a handful of times per process (the config once at start): zod's compiled
// object parsers (`new Function`) cost more to build than they save, ~4 ms of `ficta serve`'s start.
z.config({ jitless: true });

export { z };
