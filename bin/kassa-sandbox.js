#!/usr/bin/env node
// The emulator, with the same flags as `npm run sandbox`.
await import('../dist/sandbox/cli.js');
