import { HttpProblem } from '../../http/http-problem.ts';
import { EnrolmentError, type EnrolmentProblem } from './passkey-enrolment.ts';
import { SigninRefusedError } from './passkey-signin.ts';
import { NoPublicUrlError } from './relying-party.ts';
import { SigninLimitedError } from './signin-limits.ts';

const ENROLMENT_STATUS: Record<EnrolmentProblem, 400 | 404 | 409> = {
  link: 404,
  'admin-exists': 409,
  'email-taken': 409,
  'not-made': 400,
};

/** Sign-in's domain errors at the edge, with their status; anything else is rethrown. */
export function signinProblem(error: unknown): never {
  if (error instanceof SigninRefusedError) throw new HttpProblem(401, error.message);
  if (error instanceof SigninLimitedError)
    throw new HttpProblem(429, error.message, { 'Retry-After': String(error.retryAfterSeconds) });
  if (error instanceof EnrolmentError)
    throw new HttpProblem(ENROLMENT_STATUS[error.problem], error.message, {}, { problem: error.problem });
  if (error instanceof NoPublicUrlError) throw new HttpProblem(409, error.message);
  throw error;
}

/** Runs a sign-in step, its domain errors answered as signinProblem says. */
export const answering = <T>(step: () => Promise<T>): Promise<T> => step().catch(signinProblem);
