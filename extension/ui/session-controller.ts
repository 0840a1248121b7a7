import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { SESSION_PORT } from '../channels.ts';
import type { OperatorSessionView, SessionPortMessage } from '../operator-messages.ts';
import type { Permission } from '../../schemas/operators.ts';

/** Heartbeats keep the worker, and with it the live stream that tells of a revocation, running. */
const HEARTBEAT_MS = 20_000;

const controllers = new Set<SessionController>();
let current: OperatorSessionView | undefined;
let port: chrome.runtime.Port | undefined;
let heartbeat: ReturnType<typeof setInterval> | undefined;

const isSessionMessage = (message: unknown): message is SessionPortMessage =>
  typeof message === 'object' && message !== null && (message as { type?: unknown }).type === 'session';

/** One session port per page, shared by its views; a worker that went away is connected to again. */
function connect(): void {
  port = chrome.runtime.connect({ name: SESSION_PORT });
  port.onMessage.addListener((message: unknown) => {
    if (!isSessionMessage(message)) return;
    current = message.session;
    for (const controller of controllers) controller.changed();
  });
  port.onDisconnect.addListener(() => {
    port = undefined;
    clearInterval(heartbeat);
    if (controllers.size) setTimeout(() => controllers.size && !port && connect(), 500);
  });
  heartbeat = setInterval(() => port?.postMessage({ type: 'heartbeat' }), HEARTBEAT_MS);
}

/**
 * The operator's session as a view sees it (the worker tells every page of each change: signed in,
 * signing in, signed out and why, a role changed), and what the person may do: a view offers only the
 * actions `can` allows. The proxy remains the judge of each.
 */
export class SessionController implements ReactiveController {
  constructor(private readonly host: ReactiveControllerHost) {
    host.addController(this);
  }

  /** Undefined until the worker first answers. */
  get session(): OperatorSessionView | undefined {
    return current;
  }

  get signedIn(): boolean {
    return current?.state === 'signed-in';
  }

  can(permission: Permission): boolean {
    return current?.operator?.permissions.includes(permission) ?? false;
  }

  hostConnected(): void {
    controllers.add(this);
    if (!port) connect();
  }

  hostDisconnected(): void {
    controllers.delete(this);
  }

  /** The worker told of a change. */
  changed(): void {
    this.host.requestUpdate();
  }
}
