// The approval window's page.
import './kassa-approval.ts';
