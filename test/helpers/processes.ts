import { freePort, startAlertmanager, startPrometheus, startService, type Service } from '../../simulators/alerting/service.js';

/** The tests start Prometheus and Alertmanager as the demo does (simulators/alerting/service.ts). */
export { freePort, startAlertmanager, startPrometheus, startService, type Service };
