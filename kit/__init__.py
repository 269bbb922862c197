"""Helpers the tests and the benchmarks share, not tests themselves: Debian's Chromium and a `streamlit run`
server (browser_kit), a class of Chromium sessions walking the app (classroom_load), and the same walk over
Streamlit's own websocket protocol, without a browser (protocol_load)."""
