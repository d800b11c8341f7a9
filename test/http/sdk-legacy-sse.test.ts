import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { describeSdkScenario } from './sdk-scenario.js';

describeSdkScenario('official SDK client over the legacy SSEClientTransport', 'sse', ({ http }) => new SSEClientTransport(new URL(http.sseUrl!)));
