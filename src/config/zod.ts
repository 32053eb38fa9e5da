// The one module that imports zod: schemas across the project (config, detection, restore, watermark)
// take `z` from here.

import * as z from 'zod';

export { z };
