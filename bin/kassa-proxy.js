#!/usr/bin/env node
// The proxy from its bundle, with the same settings (environment variables) as `npm run proxy`.
await import('../dist/proxy/server.js');
