// The bank page's helper moved to test/support/ (the extension's on-ramp journey uses it too).
export * from '../../support/bank.ts';
