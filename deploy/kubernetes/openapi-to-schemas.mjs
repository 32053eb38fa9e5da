// Turns the Kubernetes API's OpenAPI v2 document (api/openapi-spec/swagger.json of the k8s.io/kubernetes Go
// module) into the JSON schemas kubeconform reads: one standalone, strict file per kind and version,
// named `<kind>-<group>-<version>.json` (`<kind>-<version>.json` for the core group), as kubeconform's
// `{{ .ResourceKind }}{{ .KindSuffix }}` template expects. Strict: an object with properties refuses
// unknown keys. Usage: node openapi-to-schemas.mjs SWAGGER_JSON OUT_DIR
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [swaggerPath, outDir] = process.argv.slice(2);
if (!swaggerPath || !outDir) {
  process.stderr.write('usage: node openapi-to-schemas.mjs SWAGGER_JSON OUT_DIR\n');
  process.exit(2);
}
const definitions = JSON.parse(readFileSync(swaggerPath, 'utf8')).definitions;
const REF = '#/definitions/';

/** A copy of a schema node for JSON Schema validation: Kubernetes' string-or-number types, no OpenAPI formats, strict objects. */
function convert(node, name) {
  if (Array.isArray(node)) return node.map((n) => convert(n));
  if (node === null || typeof node !== 'object') return node;
  if (name === 'io.k8s.apimachinery.pkg.util.intstr.IntOrString') return { oneOf: [{ type: 'string' }, { type: 'integer' }] };
  if (name === 'io.k8s.apimachinery.pkg.api.resource.Quantity') return { oneOf: [{ type: 'string' }, { type: 'number' }] };
  const out = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'format' || key.startsWith('x-')) continue;
    if (key === 'properties') out.properties = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, convert(v)]));
    else out[key] = convert(value);
  }
  if (out.properties !== undefined && out.additionalProperties === undefined) out.additionalProperties = false;
  return out;
}

/** Every definition `name` reaches through $ref, itself included. */
function closure(name, seen = new Set()) {
  if (seen.has(name)) return seen;
  seen.add(name);
  const walk = (node) => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node !== null && typeof node === 'object') {
      if (typeof node.$ref === 'string' && node.$ref.startsWith(REF)) closure(node.$ref.slice(REF.length), seen);
      Object.values(node).forEach(walk);
    }
  };
  walk(definitions[name]);
  return seen;
}

mkdirSync(outDir, { recursive: true });
let written = 0;
for (const [name, def] of Object.entries(definitions)) {
  for (const gvk of def['x-kubernetes-group-version-kind'] ?? []) {
    // Only a kind's own definition (not the shared DeleteOptions / WatchEvent that list every version).
    if (!name.endsWith(`.${gvk.version}.${gvk.kind}`)) continue;
    const group = gvk.group === '' ? '' : `-${gvk.group.split('.')[0]}`;
    const file = `${gvk.kind.toLowerCase()}${group}-${gvk.version}.json`.toLowerCase();
    const defs = Object.fromEntries([...closure(name)].map((n) => [n, convert(definitions[n], n)]));
    const schema = { $ref: `${REF}${name}`, definitions: defs };
    writeFileSync(join(outDir, file), JSON.stringify(schema));
    written++;
  }
}
process.stderr.write(`openapi-to-schemas: ${written} schemas in ${outDir}\n`);
