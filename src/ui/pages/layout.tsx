/** @jsxImportSource hono/jsx */
// The frame of every dashboard page: the navigation, the theme switch, the CSRF token the script and forms
// use, and the one stylesheet and script (served by the proxy itself; nothing from elsewhere).

import type { Child, FC } from 'hono/jsx';

export type PageName = 'live' | 'secrets' | 'withheld' | 'runs' | 'health' | 'benchmarks';

const NAV: ReadonlyArray<[PageName, string, string]> = [
  ['live', 'Live', '/_ficta/'],
  ['secrets', 'Secrets', '/_ficta/secrets'],
  ['withheld', 'Withheld', '/_ficta/withheld'],
  ['runs', 'Runs', '/_ficta/runs'],
  ['health', 'Health', '/_ficta/health'],
  ['benchmarks', 'Benchmarks', '/_ficta/benchmarks'],
];

export const Layout: FC<{ page: PageName; title: string; mode: string; csrf: string; children?: Child }> = ({ page, title, mode, csrf, children }) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <meta name="referrer" content="same-origin" />
      <meta name="ficta-csrf" content={csrf} />
      <title>{`${title} · ficta`}</title>
      {/* No favicon request: it would reach the proxy's routes and show on the Live page as a 404. */}
      <link rel="icon" href="data:," />
      <link rel="stylesheet" href="/_ficta/assets/app.css" />
      <script src="/_ficta/assets/app.js" defer></script>
    </head>
    <body>
      <a class="skip" href="#main">Skip to content</a>
      <header class="top">
        <span class="brand">
          ficta<small>{mode}</small>
        </span>
        <nav aria-label="Dashboard">
          <ul>
            {NAV.map(([name, label, href]) => (
              <li>
                <a href={href} aria-current={name === page ? 'page' : undefined}>
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <span class="spacer"></span>
        <button type="button" id="theme" hidden>
          Theme
        </button>
      </header>
      <main id="main">{children}</main>
    </body>
  </html>
);

/** A card that says there is nothing yet, and what to do about it. */
export const Empty: FC<{ title: string; children?: Child; id?: string }> = ({ title, children, id }) => (
  <div class="card empty" id={id}>
    <strong>{title}</strong>
    <div>{children}</div>
  </div>
);
