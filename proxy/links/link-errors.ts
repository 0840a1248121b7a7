/**
 * Why a link takes no payment now, as typed errors: the routes answer them like any refusal of their
 * kind, and `details.reason` lets the link's page say it in the customer's words.
 */
import { ConflictError, GoneError, RefusedError } from '../domain/domain-errors.ts';
import type { LinkRefusal } from '../state/links.ts';

/** The link's uses are taken: paid, or held by customers paying now (one may come back if that payment ends unpaid). */
export class LinkUsedUpError extends RefusedError {
  override name = 'LinkUsedUpError';
  constructor() {
    super('This link has been used up', { details: { reason: 'used-up' } });
  }
}

/** One more payment of this amount would take the link past its total. */
export class LinkTotalReachedError extends RefusedError {
  override name = 'LinkTotalReachedError';
  constructor() {
    super('This link has taken all it may take', { details: { reason: 'total-reached' } });
  }
}

/** The merchant paused the link; it may be resumed. */
export class LinkPausedError extends ConflictError {
  override name = 'LinkPausedError';
  constructor() {
    super('This link is paused', { details: { reason: 'paused' } });
  }
}

/** The merchant ended the link, or its time is over: it takes nothing any more. */
export class LinkEndedError extends GoneError {
  override name = 'LinkEndedError';
  constructor(readonly reason: 'ended' | 'expired') {
    super(reason === 'ended' ? 'This link has been ended' : 'This link has expired', { details: { reason } });
  }
}

export function linkRefusalError(reason: LinkRefusal): Error {
  switch (reason) {
    case 'used-up':
      return new LinkUsedUpError();
    case 'total-reached':
      return new LinkTotalReachedError();
    case 'paused':
      return new LinkPausedError();
    case 'ended':
    case 'expired':
      return new LinkEndedError(reason);
  }
}
