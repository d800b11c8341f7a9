import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describeSdkScenario } from './sdk-scenario.js';

describeSdkScenario('official SDK client over StreamableHTTPClientTransport', 'http', ({ http }) => new StreamableHTTPClientTransport(new URL(http.url)));
