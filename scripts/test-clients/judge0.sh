# Judge0 CE clients (src/e2e/judge0-clients.e2e.test.ts): the official Python SDK and two others.
pip_pinned judge0 judge0==0.0.8 judge0-client==0.4.0 judge0api==0.1.20
