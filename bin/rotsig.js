#!/usr/bin/env node
// The command runs from dist/cli-bundle/, the few files `npm run build` bundles from dist/ (they load in
// a fraction of the time of the modules they hold), while that bundle is as new as dist/cli/main.js;
// after a build by tsc alone, from dist/ itself.
import { statSync } from 'node:fs';

const built = (path) => statSync(new URL(path, import.meta.url), { throwIfNoEntry: false })?.mtimeMs ?? -1;
const entry =
  built('../dist/cli-bundle/main.js') >= built('../dist/cli/main.js')
    ? '../dist/cli-bundle/main.js'
    : '../dist/cli/main.js';
const { main } = await import(entry);

process.exitCode = await main(process.argv.slice(2));
