"""What a Schedule says: metrics, the tick-by-tick explanation, exports (JSON, CSV, Chrome trace, Prometheus) and
load sweeps with their knees."""
