"""Every text the app shows, in English: key -> text (str.format fields; the same fields in zh.py)."""

TEXTS = {
    # Navigation and sidebar
    "nav_home": "Home",
    "nav_example": "Worked example",
    "nav_lab": "Trace lab",
    "nav_guide": "Metrics guide",
    "presenter_switch": "Presenter mode",
    "presenter_help": (
        "For a projector: larger fonts in text, tables and charts, and each page's options folded away (open "
        "them when you need them)."),
    "presenter_options": "Options",
    "about_title": "About",
    "about_text": (
        "**The batching classroom** shows how an LLM server schedules requests: static batching against "
        "continuous (iteration-level) batching, on the same trace and the same budgets. The simulator counts "
        "token-work in ticks, as the design document's teaching model does: it proves scheduling semantics "
        "and metric definitions, not GPU speed."),

    # Policies, phases, units
    "policy_static": "Static batching",
    "policy_continuous": "Continuous batching",
    "phase_queued": "queued",
    "phase_prefill": "prefill",
    "phase_decode": "decode",
    "phase_padding": "padding",
    "phase_idle": "idle budget",
    "unit_tick": "tick",
    "unit_ticks": "ticks",
    "unit_tick_one": "tick",
    "with_value": "{value} {unit}",
    "marker_arrival": "arrival",
    "marker_completion": "last token",
    "marker_token": "token emitted",
    "hover_segment": "<b>{name}</b> · {phase}<br>{unit} {start} → {end}<br>{tokens} tokens",
    "hover_arrival": "<b>%{y}</b> arrives at %{x}",
    "hover_completion": "<b>%{y}</b> emits its last token at %{x}",
    "hover_token": "a token emitted at %{x}",
    "hover_work": "ticks %{{customdata[0]}} → %{{customdata[1]}}<br>{kind}: %{{y}} token-work",
    "budget_line": "budget {budget}",
    "budget_title": "Token-work · {policy}",
    "axis_token_work": "token-work",
    "axis_requests": "requests",
    "gantt_merged": "each run of one phase drawn as one bar",
    "chart_binned": "averaged over bins of {width}",
    "kv_binned": "the most in use in each bin of {width}",
    "hover_events_binned": "%{{customdata:,}} in this bin of {width}<extra>%{{fullData.name}}</extra>",
    "gantt_too_dense": (
        "{title}: this run has {bars} bars to draw, too many to read or to send to the browser, so its Gantt chart "
        "is left out; the chart above shows how many requests ran and waited over time, and the Chrome / Perfetto "
        "trace download has every segment."),
    "gantt_sampled": "showing {shown} of {total} requests, evenly sampled",
    "load_title": "Running and waiting requests · {title}",
    "load_running": "running (holding a batch slot)",
    "load_waiting": "waiting (arrived, no token-work yet)",

    # Home
    "home_title": "The batching classroom",
    "home_intro": (
        "An LLM server answers many requests at once by putting them in one **batch**: each model "
        "iteration does a little work for every request in it. First the **prefill** reads a request's "
        "prompt, then each **decode** step produces one more output token.\n\n**Static batching** waits "
        "for a batch, pads every prompt to the longest one and keeps the batch together until its "
        "longest answer is done: short requests sit idle in their slots, and new arrivals wait outside. "
        "**Continuous batching** (iteration-level scheduling) decides again at every iteration: running "
        "requests each decode a token, finished ones free their slot at once, and waiting requests are "
        "admitted into the budget that is left.\n\nBelow, the design document's three requests {requests} "
        "(arrival, prompt tokens, output tokens) with a budget of {budget} token-work a tick:"),
    "home_caption": (
        "**{policy}**: makespan {makespan} · padding waste {waste} · throughput {throughput} tokens/tick"),
    "home_after": (
        "Continuous batching admits C at tick {arrival}, in the same tick as A's decode and in B's freed "
        "slot, so C's first token comes {sooner} sooner and the trace is done at tick {end} instead of "
        "{end_static}. The teaching model counts every prompt or decode token as one unit of work; real "
        "prefill and decode costs differ, so the {more} more tokens a tick here ({throughput} against "
        "{throughput_static}) is about scheduling, not GPU speed."),
    "home_pages": "Pages",
    "home_link_worked_example": "Worked example: the seed's trace revealed tick by tick, with narration",
    "home_link_costs": "What it costs, in milliseconds: {topics}",
    "home_link_trace_lab": "Trace lab: edit, generate or upload a trace and compare two policies",
    "home_link_capacity_lab": "Capacity lab: how much load before each policy breaks its SLOs (goodput and knees)",
    "home_link_metrics_guide": "Metrics guide: queue time, TTFT, TPOT, throughput, goodput and more",
    "home_gantt": "The three requests under static and continuous batching, on one time axis",
    "list_sep": ", ",

    # Worked example
    "ex_title": "Worked example",
    "ex_lead": (
        "A=(0,4,5), B=(0,2,2), C=(3,3,4): (arrival, prompt tokens, output tokens); a budget of 8 token-work a "
        "tick. Press ▶ Play, or step with ◀ ▶."),
    "ex_intro": (
        "Each chart and table shows what has happened by the time on the clock: at time 3, ticks 0, 1 and 2 "
        "have run. Above each Gantt chart, the sentence of the tick just run says what it did, and the lines "
        "under it the rules behind it, for as long as they apply. Figures not known yet at that time show "
        "{pending}; times are in ticks, TPOT in ticks a token. The story is played by your browser: Play, "
        "Pause, the steps and the clock move every panel at once, without asking the server."),
    "ex_how": "How to read the story",
    "ex_play": "▶ Play",
    "ex_pause": "❚❚ Pause",
    "ex_start": "Back to time 0",
    "ex_back": "One tick back",
    "ex_forward": "One tick forward",
    "ex_speed_one": "{speed} tick/s",
    "ex_speed_many": "{speed} ticks/s",
    "ex_run_title": "{policy} · time {tick}",
    "ex_budget_title": "Token-work a tick · {policy}",
    "ex_table_title": "Per request at time {tick} (ticks)",
    "ex_overall_title": "Overall at time {tick}",
    "short_policy_static": "static",
    "short_policy_continuous": "continuous",
    "short_queue_time": "queue",
    "short_ttft": "TTFT",
    "short_tpot": "TPOT",
    "short_e2e": "E2E",
    "ex_m_makespan": "makespan (ticks)",
    "ex_m_throughput": "throughput (tokens a tick)",
    "ex_m_padding_waste": "padding waste (token-work)",
    "ex_m_utilization": "budget used",
    "ex_m_ttft_p50": "TTFT p50 (ticks)",
    "ex_m_e2e_p50": "E2E latency p50 (ticks)",
    "ex_takeaway_pending": "The summary waits for the end of both runs: press ▶ Play, or step forward.",
    "ex_takeaway_run": (
        "{policy}: makespan {makespan}, padding waste {waste} token-work, throughput {throughput}, {name}'s TTFT "
        "{ttft}."),
    "ex_rate_one": "{rate} token a tick",
    "ex_rate_many": "{rate} tokens a tick",
    "ex_takeaway_tpot": "Every TPOT is {tpot} tick a token.",
    "ex_done": "t={tick}: every request is done; the run is over.",
    "ex_costs_link": "Every TPOT here is 1 tick: what does continuous batching cost in ms? →",
    "ex_open_lab": "Open this trace in the trace lab",
    "ex_narration_empty": "Time 0: nothing has run yet. Press ▶ Play, or step forward.",

    # Narration of one tick
    "why_static_wait_one": "{names} waits: a static batch is closed until its longest member finishes.",
    "why_static_wait_many": "{names} wait: a static batch is closed until its longest member finishes.",
    "why_static_admit_one": "{names} starts now: a new static batch starts only when the previous one is over.",
    "why_static_admit_many": "{names} start now: a new static batch starts only when the previous one is over.",
    "why_static_padding_one": (
        "{names} holds its slot as padding: a static batch keeps a finished member's slot until the whole batch "
        "ends."),
    "why_static_padding_many": (
        "{names} hold their slots as padding: a static batch keeps a finished member's slot until the whole batch "
        "ends."),
    "why_continuous_finish_one": "{names}'s slot is free for the next iteration.",
    "why_continuous_finish_many": "The slots of {names} are free for the next iteration.",
    "why_continuous_admit_one": (
        "{names} joins at once: continuous batching admits at every iteration, into the budget the decoders leave."),
    "why_continuous_admit_many": (
        "{names} join at once: continuous batching admits at every iteration, into the budget the decoders leave."),
    "why_continuous_wait_one": (
        "{names} waits: this iteration's token budget, sequence limit or KV cache has no room for its prefill."),
    "why_continuous_wait_many": (
        "{names} wait: this iteration's token budget, sequence limit or KV cache has no room for their prefills."),
    "why_static_batch_one": "{names} runs as a batch of its own until it finishes; nothing can join it.",
    "why_static_batch_many": "{names} run as one batch until its longest member finishes; nothing can join it.",
    "why_continuous_all_one": "Nothing waits: {names} is the whole batch, and anyone arriving would join it.",
    "why_continuous_all_many": "Nothing waits: {names} are the batch, and anyone arriving would join them.",
    "why_idle": "Nothing is running: the budget idles until the next arrival.",
    "policy_rule_static": (
        "Static batching forms a batch from the requests that have arrived and runs it until its longest member "
        "finishes."),
    "policy_rule_continuous": (
        "Continuous batching decides again every iteration: finished requests leave, waiting ones join within the "
        "budget."),
    "n_tick": "t={tick}: ",
    "n_sep": "; ",
    "n_decode_one": "{names} decodes 1 token",
    "n_decode_many": "{names} decode 1 token each",
    "n_finish_one": "{names} emits its last token (done at {tick})",
    "n_finish_many": "{names} emit their last tokens (done at {tick})",
    "n_admit_one": "{names} is admitted and prefills {tokens} tokens",
    "n_admit_many": "{names} are admitted and prefill {tokens} tokens",
    "n_prefilling_one": "{names} continues the padded batch prefill",
    "n_prefilling_many": "{names} continue the padded batch prefill",
    "n_padding_one": "{names} is done but holds its slot as padding",
    "n_padding_many": "{names} are done but hold their slots as padding",
    "n_arrive_one": "{names} arrives and waits",
    "n_arrive_many": "{names} arrive and wait",
    "n_wait_one": "{names} waits",
    "n_wait_many": "{names} wait",
    "n_nothing": "nothing to run",
    "n_budget": "{idle} of {budget} budget idle",
    "n_budget_padding": " ({padding} spent on padding)",

    # Tables
    "col_name": "request",
    "lab_ab_key": "P1 = {a}, P2 = {b}.",
    "col_policy": "policy",
    "card_throughput": "tokens/{per}",
    "card_goodput_requests": "goodput",
    "lab_requests_left": "{columns}: in “{csv}” below. With them the table would not fit a 1024 px screen.",
    "lab_per_request_key": "Two rows a request: P1 = {a}, P2 = {b}.",
    "times_key": "Arrival, queue, TTFT and E2E in {unit}; TPOT in {unit} a token.",
    "col_arrival": "arrival",
    "col_prompt": "prompt",
    "col_output": "output",
    "col_priority": "priority",
    "col_deadline": "deadline",
    "col_tenant": "tenant",
    "col_cancel_at": "cancel at",
    "col_text": "text",
    "col_metric": "metric",
    "col_change": "change P2 − P1",
    "col_verdict": "better?",
    "col_row": "row",
    "col_column": "column",
    "col_problem": "problem",
    "m_queue_time": "queue time",
    "m_ttft": "TTFT",
    "m_tpot": "TPOT",
    "m_e2e": "E2E latency",
    "m_completion": "completion",
    "m_makespan": "makespan",
    "m_throughput": "throughput (tokens/{per})",
    "m_request_throughput": "requests/{per}",
    "with_unit": "{label} ({unit})",
    "per_tick": "tick",
    "per_ms": "ms",
    "m_padding_waste": "padding waste",
    "m_utilization": "budget utilization",
    "m_goodput": "goodput",
    "m_goodput_requests": "goodput (requests meeting the SLOs)",
    "m_slo_attainment": "SLO attainment",
    "m_ttft_p50": "TTFT p50",
    "m_ttft_p90": "TTFT p90",
    "m_ttft_p99": "TTFT p99",
    "m_tpot_p50": "TPOT p50",
    "m_tpot_p90": "TPOT p90",
    "m_tpot_p99": "TPOT p99",
    "m_itl_p50": "inter-token gap p50",
    "m_itl_p90": "inter-token gap p90",
    "m_itl_p99": "inter-token gap p99",
    "m_e2e_p50": "E2E latency p50",
    "m_e2e_p90": "E2E latency p90",
    "m_e2e_p99": "E2E latency p99",
    "m_queue_time_p50": "queue time p50",
    "m_queue_time_p90": "queue time p90",
    "m_queue_time_p99": "queue time p99",

    # What changed
    "wc_faster": "finishes the trace sooner",
    "wc_slower": "finishes the trace later",
    "wc_makespan": "**{b}** {verb} than **{a}**: makespan {mb} vs {ma} ({pct}).",
    "wc_ttft": "Median TTFT moves from {ta} to {tb} with **{b}**.",
    "wc_unit_tick": "ticks",
    "wc_unit_ms": "ms",
    "wc_waste": "Padding waste: {wa} token-work with **{a}**, {wb} with **{b}**.",
    "wc_goodput": "Requests meeting every SLO: {ga} of {n} with **{a}**, {gb} of {n} with **{b}**.",
    "wc_requests": "{n} of {total} requests finish sooner after arrival with **{b}**.",
    "wc_same": "Both policies give the same schedule figures on this trace.",

    # Trace lab
    "lab_title": "Trace lab",
    "lab_intro": (
        "Pick a preset, generate a trace or upload a real one, edit it in the table, set the budgets, and "
        "compare two policies on exactly the same trace. The link at the bottom takes this scenario with you."),
    "lab_trace": "1 · Trace",
    "tab_presets": "Presets",
    "tab_generator": "Generator",
    "tab_upload": "Upload",
    "preset_pick": "Preset",
    "preset_load": "Load preset",
    "preset_seed": "The design document's example (A, B, C)",
    "preset_seed_note": "Three requests, budget 8: static makespan 11 vs continuous 8.",
    "preset_bursty": "Bursty arrivals",
    "preset_bursty_note": (
        "40 requests arriving in clumps (gamma arrivals, burstiness 0.2): watch the queue build in a burst "
        "and how fast each policy drains it."),
    "preset_long_short": "Long prompts among short ones",
    "preset_long_short_note": (
        "Short chat turns plus four long documents (prompts 12-16, budget 16). Continuous batching skips "
        "ahead to short prompts that fit the leftover budget, so a long prompt can wait until the batch is "
        "nearly empty: look at the L rows' queue time."),
    "preset_azure_like": "Azure-like lengths",
    "preset_azure_like_note": (
        "120 requests with long-tailed prompt and output lengths shaped like the Azure 2023 conversation "
        "trace, scaled down (budget 64, at most 16 running)."),
    "preset_long_prompt": "One long prompt stalls everyone (chunked prefill)",
    "preset_long_prompt_note": (
        "Under a latency model (ms), chats decode while a 96-token document arrives at 60 ms. Policy 1 prefills "
        "it in one iteration: every running chat waits ~58 ms for its next token (see the inter-token gap p99). "
        "Policy 2 prefills it in chunks of 16 that share iterations with the decodes: the worst gap drops to ~21 "
        "ms, at the price of a later document and a few more iterations."),
    "preset_kv_thrash": "KV too small: overcommit and recompute vs reservation",
    "preset_kv_thrash_note": (
        "A cache of 16 blocks (64 tokens) for requests that grow to 32 tokens of KV each (8 + 25 - 1: the last "
        "token needs none). Policy 1 reserves all of it at admission: two run at a time, never preempted. "
        "Policy 2 overcommits: many start at once, then run out of "
        "blocks and preempt the latest arrivals, which prefill their whole context again — look at the KV "
        "chart's preemption marks, the recomputed tokens and the stretched TPOT."),
    "preset_vip": "VIP tenant",
    "preset_vip_note": (
        "A burst of free-tier requests and a few VIP ones (priority 0), at most 4 running. Policy 1 serves "
        "in arrival order; Policy 2 serves by priority and lets a VIP preempt a free request. Compare the per-tenant "
        "tables: the VIP TTFT falls while the free tier barely moves."),
    "preset_user_stop": "A user hits stop",
    "preset_user_stop_note": (
        "Every third user stops their answer 6 ticks after arriving (the cancel_at column). Continuous "
        "batching frees the slot at the next iteration (one token made after the stop is wasted); static "
        "batching keeps it as padding until the batch ends."),
    "preset_graph_buckets": "Graph buckets pad small batches",
    "preset_graph_buckets_note": (
        "Policy 2 runs decode-only iterations as CUDA graphs captured for batches of 1, 2, 4, 8, 16 and 32: a batch "
        "of 5 runs as 8. The yellow bars above the budget are those padding slots, computed for nothing."),
    "preset_speculation": "Speculation at 60% acceptance",
    "preset_speculation_note": (
        "Policy 2 drafts 3 tokens a step and the target model accepts each with probability 0.6: a step costs 4 "
        "token-work but commits 1 to 4 tokens, so answers finish in fewer iterations (look at the "
        "multi-token steps in the Gantt) while the budget chart fills faster."),
    "gen_n": "Requests",
    "gen_n_help": "How many requests to generate.",
    "gen_rate": "Arrival rate (requests per tick)",
    "gen_rate_help": "The mean number of arrivals a tick.",
    "gen_burstiness": "Burstiness",
    "gen_burstiness_help": (
        "Shape of the gamma gaps between arrivals: 1 is Poisson, below 1 comes in bursts, above 1 is more "
        "regular (as in vLLM's benchmark)."),
    "gen_prompt": "Prompt length",
    "gen_output": "Output length",
    "dist_uniform": "uniform",
    "dist_fixed": "fixed",
    "dist_lognormal": "lognormal (long tail)",
    "dist_value": "tokens",
    "dist_low": "from",
    "dist_high": "to",
    "dist_median": "median",
    "dist_sigma": "sigma (spread)",
    "gen_seed": "Seed",
    "gen_seed_help": "The same seed and parameters always give the same trace.",
    "gen_make": "Generate",
    "gen_bad": "Cannot generate: {reason}",
    "up_file": "Trace file",
    "up_help": "Native CSV/JSON, Azure LLM inference CSV, Mooncake JSONL or BurstGPT CSV, up to {mb} MB.",
    "up_format": "Format",
    "fmt_auto": "detect from the header",
    "fmt_native": "native (name, arrival, prompt, output)",
    "fmt_azure": "Azure LLM inference",
    "fmt_mooncake": "Mooncake JSONL",
    "fmt_burstgpt": "BurstGPT",
    "up_ms_per_tick": "Milliseconds per tick",
    "up_token_scale": "Token scale",
    "up_limit": "At most this many requests",
    "up_start_s": "Window start (seconds)",
    "up_end_s": "Window end (seconds, 0 = to the end)",
    "up_end_help": "Seconds after the trace's first request.",
    "up_import": "Import",
    "up_too_big": "The file is larger than {mb} MB. Cut it down, or run it with python -m sim run.",
    "up_bad": "The file could not be imported:",
    "up_report": "Import report: {report}",
    "help_name": "A unique name for the request.",
    "help_arrival": "Tick at which the request arrives (0 or more).",
    "help_prompt": "Prompt tokens to prefill (1 or more).",
    "help_output": "Output tokens to decode (1 or more).",
    "lab_bad_rows": "{n} row(s) need fixing before the trace can run:",
    "lab_sorted": "The rows were not in arrival order; the simulation uses them sorted by arrival.",
    "lab_too_many": (
        "{n:,} requests is more than the lab's limit of {limit:,} for an interactive run; use python -m sim "
        "run for the whole trace."),
    "lab_count": "{n} requests",
    "dl_trace_csv": "Download trace (CSV)",
    "dl_trace_json": "Download trace (JSON)",
    "dl_typed_csv": "Download what is typed (CSV)",
    "lab_budgets": "2 · Budgets and policies",
    "cfg_budget": "Token budget per iteration",
    "cfg_budget_help": "Token-work one iteration (one tick, in ticks) may do: prefill tokens + decode tokens + padding slots.",
    "cfg_max_seqs": "Max running sequences (0 = no limit)",
    "cfg_max_seqs_help": "The most requests in one iteration's batch.",
    "cfg_first_token": "First output token",
    "cfg_first_token_help": (
        "Teaching mode: a prefill tick emits nothing, the first token comes from the first decode tick. "
        "Engine mode: the prefill iteration samples the first token, as vLLM does."),
    "first_decode": "from the first decode (teaching)",
    "first_prefill": "from the prefill (engine, vLLM)",
    "cfg_slo_ttft": "SLO: TTFT at most ({unit}, 0 = none)",
    "cfg_slo_tpot": "SLO: TPOT at most ({unit}, 0 = none)",
    "cfg_slo_e2e": "SLO: E2E at most ({unit}, 0 = none)",
    "cfg_slo_help": "Goodput counts the requests that meet every SLO you set.",
    "cfg_policy_a": "Policy 1",
    "cfg_policy_b": "Policy 2",
    "cfg_bad": "“{field}”: {reason}",
    "lab_over_budget": (
        "These prompts are larger than the token budget, so they could never be admitted (without chunked "
        "prefill). Raise the budget or shorten them:"),
    "lab_results": "3 · Results",
    "lab_run": "Run ▶",
    "lab_running": "Simulating both policies…",
    "run_stopped": (
        "The run of {policy} was stopped after {seconds} s of computing, at {time}, with {done} of {total} requests "
        "finished. This server is shared, so a run may take at most {seconds} s here. Runs are fast when "
        "identical iterations merge; speculative decoding, MoE routing, slow stream clients and small prefill "
        "chunks of long prompts are planned one iteration at a time, and this trace makes too many of them. Make "
        "the longest requests shorter or the trace smaller, or download the trace and run it with "
        "`python -m sim run`, which has no limit. Your inputs are kept."),
    "run_busy": (
        "The run of {policy} was stopped after {seconds} s of waiting: this server is busy with the class, and this "
        "run had {computed} s of computing (of the {limit} s a run may take). It had reached {time}, "
        "with {done} of {total} requests finished. Press Run to try again, or make the trace smaller or its longest "
        "requests shorter. Your inputs are kept."),
    "run_busy_waits": (
        "The last run of these inputs was stopped because the server was busy with the class, so it is not tried "
        "again at every change of the page. Press Run to try again. Your inputs are kept."),
    "lab_stale": "The trace or budgets changed since this run: press Run to update.",
    "lab_press_run": "Press Run to simulate this trace.",
    "lab_fix_first": "Fix the problems above to run.",
    "card_help": "Policy 2's value; the arrow shows the change from Policy 1 ({a}). Green is better.",
    "lab_overall": "Overall, Policy 1 against Policy 2",
    "lab_per_request": "Per request",
    "dl_requests_csv": "Per-request metrics (CSV)",
    "dl_overall_csv": "Overall metrics (CSV)",
    "dl_schedule_json": "Schedules (JSON)",
    "dl_chrome": "Chrome / Perfetto trace",
    "dl_chrome_help": "Open it at ui.perfetto.dev: one track per request, a tick shown as 1 ms.",
    "dl_schedule_too_large": (
        "Schedules (JSON): these runs emitted {count} tokens, and the schedules say when each was: more than the "
        "{limit} times a page writes into a download. Download the trace (CSV) and run it with "
        "`python -m sim run --trace trace.csv --json` and the same settings, which writes every one."),
    "dl_chrome_too_large": (
        "Chrome / Perfetto trace: these runs make {count} events, more than the {limit} a page writes into a "
        "download. A shorter trace, or shorter requests, makes one."),
    "link_title": "Share this scenario (link)",
    "link_too_large": "This trace is too large for a link: share the downloaded trace instead.",
    "link_loaded": "Scenario loaded from the link.",
    "link_bad": "This link could not be opened ({reason}). The lab shows the default scenario.",
    "link_dismiss": "Dismiss",
    "link_err_too_long": "it is too long",
    "link_err_not_a_link": "it is not a scenario link, or it was cut or changed",
    "link_err_bad_version": "it was made by another version of the app",
    "link_err_bad_trace": "its trace is invalid",
    "link_err_bad_config": "its budgets are invalid",
    "link_err_bad_policy": "it names an unknown policy",

    # What a real scheduler also decides (issue: scheduler realism)
    "phase_stalled": "stalled",
    "phase_preempted": "preempted",
    "phase_swapped": "swapped out",
    "phase_swapping": "swapping in",
    "phase_graph_padding": "graph padding",
    "unit_ms": "ms",
    "event_preempt": "preempted (recompute)",
    "event_swap_out": "swapped out",
    "event_swap_in": "swapped in",
    "event_cancel": "cancelled",
    "event_reject": "rejected",
    "hover_event_preempt": "<b>%{y}</b> preempted at %{x}: its KV is dropped, it will prefill again",
    "hover_event_swap_out": "<b>%{y}</b> swapped out to host memory at %{x}",
    "hover_event_swap_in": "<b>%{y}</b> starts swapping back in at %{x}",
    "hover_event_cancel": "<b>%{y}</b>: its user stops it at %{x}",
    "hover_event_reject": "<b>%{y}</b> rejected at %{x}: it could never fit the KV cache",
    "reason_finished": "finished",
    "reason_cancelled": "cancelled",
    "reason_rejected": "rejected",
    "kv_title": "KV blocks in use · {policy}",
    "kv_blocks": "blocks held",
    "kv_total": "blocks in use",
    "kv_capacity": "cache: {blocks} blocks",
    "hover_kv": "<b>{name}</b>: {blocks} blocks<br>{start} → {end}",
    "axis_blocks": "KV blocks",
    "m_finished": "finished requests",
    "m_cancelled": "cancelled requests",
    "m_rejected": "rejected requests",
    "m_preemptions": "preemptions",
    "m_recomputed_tokens": "tokens recomputed",
    "m_swapped_blocks": "blocks swapped out",
    "m_wasted_tokens": "tokens generated, never delivered",
    "m_wasted": "wasted tokens",
    "m_kv_peak": "KV blocks, peak",
    "m_kv_mean": "KV blocks, mean",
    "m_graph_padding": "CUDA-graph padding slots",
    "m_spec_accepted": "draft tokens accepted",
    "m_finish_reason": "ended",
    "col_requests": "requests",
    "col_finished": "finished",
    "col_cancelled": "cancelled",
    "col_rejected": "rejected",
    "col_goodput": "meet the SLOs",
    "col_tokens": "tokens delivered",
    "col_ttft_p50": "TTFT p50",
    "col_ttft_p90": "TTFT p90",
    "col_tpot_p50": "TPOT p50",
    "col_e2e_p50": "E2E p50",
    "col_e2e_p90": "E2E p90",
    "lab_per_tenant": "Per tenant",
    "lab_per_priority": "Per priority",
    "lab_rejected": "{n} request(s) could never fit the KV cache and were rejected: {names}.",
    "wc_tpot": "TPOT p90 moves from {ta} to {tb} a token with **{b}**.",
    "wc_preemptions": "Preemptions: {pa} with **{a}** ({ra} tokens recomputed), {pb} with **{b}** ({rb} recomputed).",
    "cfg_hardware": "KV cache and cost model (the same for both policies)",
    "cfg_kv_blocks": "KV cache blocks (0 = unlimited)",
    "cfg_kv_blocks_help": "Paged KV cache size. A request holding n tokens needs ceil(n / block size) blocks.",
    "cfg_block_size": "Tokens a block holds",
    "cfg_block_size_help": "vLLM's default is 16; small blocks suit the classroom's small numbers.",
    "cfg_swap_cost": "Swap-in time",
    "cfg_swap_cost_help": "Time a swapped-out request needs to bring its blocks back from host memory.",
    "cfg_cost": "Cost model",
    "cfg_cost_help": (
        "Ticks: every iteration lasts one tick (the seed's teaching model). Linear: an iteration lasts c0 + "
        "c_prefill·prefill tokens + c_decode·decode sequences + c_attn·context read, in ms; arrivals are "
        "then read as ms. Measured profile: the real engine's iteration time on this machine, measured over "
        "a grid of batch shapes (python -m gpu_demo profile): a run as this machine would serve it."),
    "cost_ticks": "ticks (token-work)",
    "cost_linear": "linear latency (ms)",
    "cost_profile": "measured profile (ms)",
    "cost_roofline": "a real GPU (ms)",
    "cost_used_roofline": "These results use a real GPU's roofline, {model} on {tp} x {gpu} ({dtype}): times are in ms.",
    "cfg_gpu": "GPU",
    "cfg_gpu_help": "A real accelerator, from its datasheet: dense peak FLOP/s, HBM size and bandwidth, and the link between GPUs.",
    "cfg_model": "Model",
    "cfg_model_help": "A real model's public config: layers, hidden size, heads, KV heads, MLP, vocabulary (and experts).",
    "cfg_tp": "Tensor parallel (GPUs)",
    "cfg_tp_help": "GPUs one engine spans: each holds 1/tp of the weights and works on 1/tp of every matrix; two all-reduces a layer join them.",
    "cfg_precision": "Precision",
    "cfg_precision_help": "Weights and KV cache in bf16 (2 bytes) or fp8 (1 byte, at the fp8 peak where the GPU has one).",
    "precision_bf16": "bf16",
    "precision_fp8": "fp8",
    "cfg_gpu_memory_utilization": "GPU memory used",
    "roofline_about": (
        "{gpu}: {tflops} TFLOP/s (dense, this precision), {bw} GB/s of HBM, {memory} GB. {model}: {params} billion "
        "weights, {weights} GB per GPU at tensor parallel {tp}. An iteration takes the slower of its FLOPs at {compute} of "
        "the peak and its bytes (weights once, KV read and written) at {memory_eff} of the bandwidth, plus the "
        "all-reduces between GPUs. It leaves out launch overheads and slow attention kernels: real engines are "
        "slower, most at small batches."),
    "roofline_no_room": "{model} does not fit on {tp} × {gpu} with room for a KV cache: raise tensor parallel.",
    "roofline_kv_auto": "KV cache from the GPU memory: {blocks} blocks of {block} tokens",
    "nav_planner": "Plan a fleet",
    "pl_title": "Plan a fleet: how many GPUs does this trace need?",
    "pl_intro": (
        "Pick a real model and the GPUs you could buy. For each GPU and tensor-parallel width, the planner finds the "
        "fewest replicas that keep the SLO, by simulating the whole trace on each fleet: every iteration timed by "
        "the **roofline** of that GPU (the slower of its FLOPs and its bytes moved, from the datasheet), every "
        "replica's KV cache sized from what the weights leave of its memory. Then it shows the cheapest answer and "
        "the **Pareto front**: the fleets no other beats on both cost and goodput."),
    "pl_trace": "1 · The trace",
    "pl_source": "Requests",
    "pl_source_generated": "generated (Poisson arrivals)",
    "pl_source_lab": "the trace lab's table (ticks read as ms)",
    "pl_requests": "Requests",
    "pl_rate": "Arrivals (requests/s)",
    "pl_prompt_0": "Shortest prompt (tokens)",
    "pl_prompt_1": "Longest prompt (tokens)",
    "pl_output_0": "Shortest output (tokens)",
    "pl_output_1": "Longest output (tokens)",
    "pl_lengths_order": "A shortest length is above its longest: lengths are drawn evenly between the two.",
    "pl_trace_summary": "{n} requests over {span} s; mean prompt {prompt} tokens, mean output {output} tokens.",
    "pl_fleet": "2 · The model and the GPUs to try",
    "pl_pick": "choose one or more",
    "pl_gpus_label": "GPUs to try",
    "pl_replicas": "Replicas to search (each a copy of the engine)",
    "pl_priced": "Price by the hour",
    "pl_priced_help": "Off: cost counts GPUs. On: cost is GPUs × the price of a GPU-hour you type.",
    "pl_price": "{gpu} ($ a GPU-hour)",
    "pl_slo": "3 · The SLO",
    "pl_no_gpu": "Choose at least one GPU to try.",
    "pl_no_tp": "Choose at least one tensor-parallel width.",
    "pl_run": "Plan",
    "pl_stale": "The inputs changed since this plan was made: press Plan to update it.",
    "pl_running": "Simulating fleets: {n} so far…",
    "pl_press_run": "Press Plan to search.",
    "pl_bad": "The plan cannot run: {reason}",
    "pl_answer_title": "The answer",
    "pl_none": "No fleet tried keeps {target} of requests within the SLO: try more replicas, a wider tensor parallel, or a faster GPU.",
    "pl_answer": (
        "**Cheapest within the SLO: {fleet}**{cost}. "
        "{share} of requests meet the SLO; goodput {goodput} requests/s; TTFT p90 {ttft} ms, TPOT p90 {tpot} ms."),
    "pl_cheaper": "The best cheaper fleet tried, {fleet}, keeps only {share}.",
    "pl_costing": ", {cost}",
    "pl_dollars": "${value}/h",
    "pl_gpus": "{n} GPUs",
    "pl_gpu": "{n} GPU",
    "pl_budget": "Token budget per iteration",
    "pl_legend": "{gpu}, {keeps}",
    "pl_legend_split": " split",
    "pl_keeps": "keeps the SLO",
    "pl_misses": "misses it",
    "pl_point": "{fleet}: {share} within the SLO",
    "pl_front": "Pareto front",
    "pl_cheapest": "cheapest within the SLO",
    "pl_chart": "Every fleet simulated: cost against goodput",
    "pl_cost_axis_dollars": "cost ($ an hour)",
    "pl_cost_axis_gpus": "cost (GPUs)",
    "pl_goodput_axis": "goodput (requests/s within the SLO)",
    "pl_chart_caption": (
        "Filled markers keep the SLO target, hollow ones miss it; diamonds split prefill from decode. The dotted line is the Pareto front: moving right "
        "along it buys goodput with money; a point below it is beaten by one on it."),
    "pl_unfit": "{family} cannot run: {why}",
    "pl_col_fleet": "fleet",
    "pl_fleet_cell": "{fleet}: {gpus}",
    "pl_fleet_engines": "{replicas} × {gpu} (TP {tp})",
    "pl_fleet_split": "{replicas} × ({split}) {gpu} (TP {tp})",
    "pl_splits_none": "none: engines side by side only",
    "pl_splits": "Prefill:decode splits to try",
    "pl_splits_help": (
        "Beside engines side by side, fleets split DistServe's way: a copy is P prefill engines and D decode engines "
        "(1:2 is one of each prefill beside two decoding), first tokens from the prefill, KV blocks sent over the "
        "GPUs' link. Replicas then count copies."),
    "pl_col_cost": "cost",
    "pl_col_attainment": "within SLO",
    "pl_col_goodput": "goodput (req/s)",
    "pl_col_p90": "p90 TTFT / TPOT (ms)",
    "pl_download": "Download every fleet (CSV)",
    "pl_model_caption": "{params} billion weights, {layers} layers, {kv} KiB of KV cache a token (bf16).",
    "pl_honest": (
        "How far to trust it: the roofline is a floor on time. Real engines add kernel launches, slower attention "
        "kernels and small-batch inefficiency, so a real fleet needs the same or more GPUs. Against Vidur's "
        "measured A100 figures for Llama-2-70B, the roofline is within 30% for prefills and mixed batches and up "
        "to 45% fast for large pure-decode batches (the README's \"A real GPU\")."),
    "cost_profile_about": (
        "The profile shipped with the app: the tiny model's engine timed on {device} ({dtype}, {threads} "
        "threads) over {shapes} batch shapes; on shapes left out of its fit it is off by {held_out}% on average, "
        "and one shape's own timings spread {spread}%."),
    "cost_profile_about_own": (
        "This machine's profile: the tiny model's engine timed here on {device} ({dtype}, {threads} "
        "threads) over {shapes} batch shapes; on shapes left out of its fit it is off by {held_out}% on average, "
        "and one shape's own timings spread {spread}%."),
    "cost_profile_formula": (
        "An iteration takes {c0} ms + {c_token} ms × token rows + {c_seq} ms × sequences + {c_key} ms × "
        "(sequences × longest KV span) + {c_cell} ms × (sequences × longest chunk × longest KV span): the "
        "batch the engine packs, padded to its longest chunk and context."),
    "cost_profile_missing": "No cost profile at {path}: make one with python -m gpu_demo profile.",
    "cfg_cost_preset": "Coefficients from",
    "cost_preset_small_gpu": "a small GPU",
    "cost_preset_big_gpu": "a big GPU",
    "cost_preset_cpu_tiny_model": "a tiny model on a CPU",
    "cfg_c0": "c0 (ms)",
    "cfg_c_prefill": "c_prefill (ms/token)",
    "cfg_c_decode": "c_decode (ms/sequence)",
    "cfg_c_attn": "c_attn (ms/context token)",
    "cfg_c0_help": "Fixed cost of an iteration: kernel launches, scheduling.",
    "cfg_c_prefill_help": "Cost of each prompt token prefilled.",
    "cfg_c_decode_help": "Cost of each sequence decoding (a padded slot too).",
    "cfg_c_attn_help": "Cost of each KV token attention reads: decodes get slower as contexts grow.",
    "cost_linear_note": (
        "Prefill and decode tokens cost differently, so results under this model are in ms and differ from "
        "the token-work picture: each chart and table says which model it used."),
    "cost_used_linear": "These results use the linear latency model: times are in ms.",
    "opt_title": "Scheduler options",
    "opt_changed": "Options changed: {summary}",
    "opt_order": "Queue order",
    "opt_order_help": (
        "Which waiting request goes first when budget, a slot and KV room free up. FCFS skipping what does not "
        "fit is the design document's loop."),
    "opt_order_fcfs_skip": "FCFS, skip what does not fit",
    "opt_order_fcfs": "FCFS, head-of-line blocking",
    "opt_order_priority": "priority (lower value first)",
    "opt_order_sjf": "shortest job first",
    "opt_order_edf": "earliest deadline first",
    "opt_order_aging": "priority with aging",
    "opt_sjf_key": "Job size from",
    "opt_sjf_key_prompt": "prompt length",
    "opt_sjf_key_output": "known output length",
    "opt_aging_rate": "Aging rate (priority a tick waited)",
    "opt_aging_rate_help": (
        "A waiting request's priority value drops by this much per unit of time, so nothing waits forever."),
    "opt_preemptive_priority": "Higher priority may preempt",
    "opt_preemptive_priority_help": (
        "When the best waiting request has no slot or KV room, running requests of lower priority are "
        "preempted (by recompute)."),
    "opt_tenant_quotas": "Tenant quotas (tenant=share of the budget)",
    "opt_tenant_quotas_help": (
        "For example vip=0.75, free=0.25: a tenant's token-work in an iteration stays within its share while "
        "others run."),
    "opt_timeout": "Timeout (0 = none)",
    "opt_timeout_help": (
        "Cancel a request this long after its arrival if it has not finished (the cancel_at column cancels "
        "single requests)."),
    "opt_chunk_size": "Chunked prefill: tokens a chunk (0 = off)",
    "opt_chunk_size_help": (
        "Sarathi-style: a long prompt is prefilled over several iterations in chunks that share them with "
        "decodes; a prompt longer than the budget becomes schedulable."),
    "opt_mixing": "Prefill and decode",
    "opt_mixing_help": (
        "Decode-first: decodes, then prefill in the budget left. Prefill-first: an iteration with prefill "
        "work does no decodes, so running requests stall."),
    "opt_mixing_decode_first": "decode-first, mixed",
    "opt_mixing_prefill_first": "prefill-first, not mixed",
    "opt_kv_admission": "KV admission",
    "opt_kv_admission_help": (
        "Reserve: blocks for prompt and whole output at admission (never preempts). Overcommit: the whole "
        "prompt's blocks at admission, then blocks as tokens grow; preempt when they run out. First chunk: "
        "blocks as each chunk of the prompt runs, and only the first chunk's need be free to admit (vLLM "
        "before 0.33, or with scheduler_reserve_full_isl off)."),
    "opt_kv_admission_reserve": "reserve prompt + output",
    "opt_kv_admission_overcommit": "overcommit, grow on demand",
    "opt_kv_admission_chunk": "first chunk only, grow by chunk",
    "opt_preempt": "When blocks run out",
    "opt_preempt_help": (
        "Recompute: drop the victim's KV and prefill prompt + generated tokens again later. Swap: move its "
        "blocks to host memory and bring them back."),
    "opt_preempt_recompute": "preempt by recompute",
    "opt_preempt_swap": "preempt by swap",
    "opt_victim": "Victim",
    "opt_victim_latest": "latest arrival",
    "opt_victim_lowest_priority": "lowest priority",
    "opt_graph_buckets": "CUDA-graph batch sizes (empty = eager)",
    "opt_graph_buckets_help": (
        "Captured decode batch sizes, such as 1, 2, 4, 8, 16, 32: a decode-only batch is padded up to the "
        "next one, or runs eagerly above the largest."),
    "opt_spec_tokens": "Draft tokens k",
    "opt_spec_tokens_help": (
        "Speculative decoding: each step verifies k draft tokens (k + 1 token-work) and commits 1 to k + 1 "
        "tokens."),
    "opt_spec_accept": "Acceptance",
    "opt_seed": "Seed",
    "opt_short_order": "order {value}",
    "opt_short_sjf_key": "by {value}",
    "opt_short_aging_rate": "aging {value}",
    "opt_short_preemptive_priority": "preemptive",
    "opt_short_tenant_quotas": "quotas {value}",
    "opt_short_chunk_size": "chunks of {value}",
    "opt_short_mixing": "{value}",
    "opt_short_kv_admission": "KV {value}",
    "opt_short_preempt": "{value}",
    "opt_short_victim": "victim {value}",
    "opt_short_timeout": "timeout {value}",
    "opt_short_graph_buckets": "graphs {value}",
    "opt_short_spec_tokens": "speculate {value}",
    "opt_short_spec_accept": "accept {value}",
    "opt_short_seed": "seed {value}",

    # Real model
    "nav_real": "Real model",
    "home_link_real_model": "Real model: a tiny transformer served by the same schedulers, measured",
    "rm_title": "Real model",
    "rm_intro": (
        "A byte-level GPT with {params:,} parameters, trained on the Python standard library's source "
        "(validation loss {loss} nats/byte), with a paged KV cache. The very scheduler classes of the "
        "simulator drive it: every iteration is **one batched forward pass** over all scheduled tokens "
        "(prefill chunks and decodes packed together), and the timeline records measured milliseconds. "
        "Greedy decoding: each request makes exactly its output tokens."),
    "rm_device": "Device",
    "rm_device_help": "CUDA when the server has a GPU, else the CPU.",
    "rm_dtype": "Precision",
    "rm_dtype_help": "In float64 every policy's outputs equal each request generated alone, token for token.",
    "rm_arrivals": "Arrivals in",
    "rm_arrivals_tick": "iterations (the simulator's schedule)",
    "rm_arrivals_ms": "milliseconds of wall time",
    "rm_arrivals_help": (
        "Iterations: a request arriving at 3 joins at the 4th iteration, as in the simulator. Milliseconds: "
        "it joins once that much time has passed."),
    "rm_no_model": "The model cannot be loaded: {reason}",
    "rm_trace": "1 · Requests",
    "rm_source": "Trace",
    "rm_source_mixed": "mixed lengths",
    "rm_source_short_chats": "short chats",
    "rm_source_long_outputs": "long answers",
    "rm_source_lab": "the lab's trace",
    "rm_prompt_seed": "Prompt seed",
    "rm_prompt_seed_help": (
        "Prompts are a `text` column, or pieces of real Python source of each request's prompt length drawn "
        "with this seed."),
    "rm_prompt_text": "prompt text",
    "rm_bad_trace": "The lab's trace cannot run here:",
    "rm_too_many": (
        "The lab's trace has {n} requests; a run on the shared model takes at most {limit} (other users wait "
        "while it runs). Serve larger traces with `python -m gpu_demo run`."),
    "rm_scaled": (
        "Prompt and output lengths were scaled down so every request fits the model's context of {context} "
        "bytes."),
    "rm_run": "Run on the model ▶",
    "rm_stop": "Stop",
    "rm_stop_help": "Stops the run (its partial results are dropped).",
    "rm_waiting": "Waiting for the model: another run is using it…",
    "rm_streaming": "{name}, as it is generated:",
    "rm_running": "Running {label} on the model…",
    "rm_cannot_run": "This cannot run: {reason}",
    "rm_press_run": "Press Run to serve these requests with the model under Policy 1 and Policy 2.",
    "rm_measured_note": "Measured on {device} ({dtype}): times are wall-clock milliseconds.",
    "rm_tokens_per_s": "tokens/s · {label}",
    "rm_overhead": "{share} of the iteration time was spent outside the model (scheduling, batching).",
    "rm_prediction": "The simulator's prediction",
    "rm_prediction_intro": (
        "Before the first run on this machine, the engine's iteration was timed on a grid of batch shapes and a "
        "cost model fitted to those timings (python -m gpu_demo profile, as Vidur profiles first and simulates "
        "after). Just before each run, a few of those shapes were timed again: the machine may be busier now, "
        "and the profile's times are scaled by how much. The simulator then serves the same requests under the "
        "same policy with that profile: it has never seen this run, so the errors below are what the simulated "
        "picture gets wrong."),
    "rm_profiling": "Profiling this machine once (about 10 s): each batch shape of a grid timed, a cost model "
                    "fitted. It is kept, so later runs start at once…",
    "rm_profiled_now": (
        "This machine had no profile yet, so it was profiled before these runs ({seconds} s) and kept at "
        "`{path}`: later predictions use it. No prediction here uses another machine's profile."),
    "rm_calibration": (
        "{label}: just before the run, {shapes} of the profile's shapes ran at **{scale}x** their profiled time "
        "({seconds} s of calibration); the prediction's times are scaled by {scale}."),
    "rm_void": (
        "The comparison for {label} is void: in all, the run's own iterations took {drift} against the time the "
        "calibrated profile gives their shapes, beyond ±{limit}. The machine's speed changed while it ran (another session, "
        "or a browser on the same machine as the server), so no prediction made before the run can hold, and "
        "none is drawn. Run it again when the machine is quieter."),
    "rm_threads": "Torch threads, chosen just before each run: {runs} ({cores} cores, up to {busy} of them busy "
                  "with other work in the last minute; a thread that shares its core stalls the others).",
    "rm_threads_run": "{label} on {threads}",
    "rm_gantt_measured": "{title}: measured",
    "rm_gantt_predicted": "{title}: predicted by the simulator",
    "rm_iteration_error": (
        "{label}: each iteration's measured time is {stray}% off the profile's time for its shape (median); "
        "the rest of the error comes from how those errors add up over the run."),
    "rm_measured": "measured",
    "rm_predicted": "predicted",
    "rm_error": "error",
    "rm_error_void": "error (void)",
    "rm_outputs": "What the model wrote (Policy 2)",

    # Input problems (the codes of sim.trace.trace.MESSAGES)
    "prob_empty": "is empty",
    "prob_no_prompt": "is empty, and so is the text that could stand in for it",
    "prob_not_integer": "must be a whole number, got {value}",
    "prob_not_rate": "must be a number of tokens a time unit above 0, got {value}",
    "prob_bad_hash_ids": "must be whole numbers >= 0 (prefix-block hashes, as Mooncake's hash_ids), got {value}",
    "prob_below_min": "must be at least {min}, got {value}",
    "prob_above_max": "must be at most {max}, got {value}",
    "prob_too_long": "is longer than {max} characters",
    "prob_duplicate": "repeats the name of row {other}",
    "prob_missing_column": "the column is missing",
    "prob_before_arrival": "must not be before the arrival tick {arrival}",
    "prob_too_many_rows": (
        "the trace has {rows:,} requests, more than the {max:,} of an interactive run: run it with python -m sim "
        "run, or cut it first"),
    "problems_more": "{n} problems in all: the first {listed} are listed. Fix them to see the rest.",
    "prob_no_rows": "the trace has no requests",
    "prob_unreadable": "cannot be read: {detail}",
    "prob_over_context": "prompt and output need {tokens} positions; the model has {context}",
    "prob_over_budget": "prompt of {prompt} tokens is larger than the token budget {budget}",

    # Metrics guide
    "guide_title": "Metrics guide",
    "guide_intro": (
        "What each metric measures, how it is computed here and what it includes, drawn on one request of "
        "the worked example. Pick a policy and a request."),
    "guide_policy": "Policy",
    "guide_request": "Request",
    "guide_here": "here ({name})",
    "anatomy_title": "Request {name}: queue, TTFT and the gaps between its tokens",
    "anatomy_ttft": "TTFT = {value}",
    "anatomy_queue": "queue = {value}",
    "anatomy_tpot": "{n} gaps, mean TPOT = {value}",
    "guide_queue_time_def": "How long a request waits for the scheduler or for capacity before it gets any token-work.",
    "guide_queue_time_formula": "\\text{queue} = t_{\\text{first work}} - t_{\\text{arrival}}",
    "guide_queue_time_includes": (
        "Includes waiting for a free slot, for budget left in a tick, or (static) for the current batch to "
        "finish. Not the prefill itself."),
    "guide_ttft_def": "Time to first token: from arrival until the first output token is emitted.",
    "guide_ttft_formula": "\\text{TTFT} = t_{\\text{first token}} - t_{\\text{arrival}}",
    "guide_ttft_includes": (
        "Includes queue time and prefill; in the teaching mode also the first decode tick. A real server "
        "adds tokenization, the chat template, sampling and streaming."),
    "guide_tpot_def": (
        "Time per output token (inter-token latency): the mean gap between consecutive output tokens after "
        "the first; 0 for a one-token answer."),
    "guide_tpot_formula": "\\text{TPOT} = \\frac{t_{\\text{last}} - t_{\\text{first}}}{n_{\\text{out}} - 1}",
    "guide_tpot_includes": (
        "Reported per request (its mean) or as the distribution of all gaps; stalls between decodes "
        "(preemption, a long prefill in the way) raise it."),
    "guide_throughput_def": "Output tokens completed per unit of time over the whole run.",
    "guide_throughput_formula": "\\text{throughput} = \\frac{\\sum_r n_{\\text{out}}(r)}{\\text{makespan}}",
    "guide_throughput_includes": "Says nothing about whether each request met its latency target.",
    "guide_goodput_def": (
        "The requests (or their tokens) that meet every given SLO: TTFT, TPOT and end-to-end limits. Set "
        "SLOs in the lab to see it move."),
    "guide_goodput_formula": (
        "\\text{goodput} = \\#\\{r : \\text{TTFT}_r \\le T_1,\\ \\text{TPOT}_r \\le T_2,\\ \\text{E2E}_r \\le T_3\\}"),
    "guide_goodput_includes": "With no SLO set every request counts. Per unit of time it is divided by the makespan.",
    "guide_makespan_def": "Time from tick 0 until the last token of the trace is emitted.",
    "guide_makespan_formula": "\\text{makespan} = \\max_r t_{\\text{last token}}(r)",
    "guide_makespan_includes": "Suited to offline (batch) comparisons on a fixed trace.",
    "guide_padding_waste_def": (
        "Token-work spent on nothing: prompt positions padded to the batch's longest prompt, plus the decode "
        "slots of batch members that are already done."),
    "guide_padding_waste_formula": (
        "\\text{waste} = \\sum_{\\text{batches}} (n \\cdot p_{\\max} - \\textstyle\\sum p) + \\text{idle decode "
        "slots}"),
    "guide_padding_waste_includes": "Continuous batching has none: no padding, and a finished request leaves its slot.",
    "guide_utilization_def": "The share of the token budget spent on useful prefill and decode work.",
    "guide_utilization_formula": (
        "\\text{utilization} = \\frac{\\text{prefill} + \\text{decode tokens}}{\\text{budget} \\times "
        "\\text{makespan}}"),
    "guide_utilization_includes": "Padding is not useful work; idle ticks count as unused budget.",
    "guide_fair_title": "A fair A/B comparison",
    "guide_hood_title": "Under the hood: the seed's four steps in sim's code",
    "guide_hood": (
        "Every iteration of continuous batching is the seed's four steps. In `sim/core/continuous.py`, "
        "`Continuous.plan` calls them in order, one function each:\n"
        "1. **Decode the running requests**: `plan_decodes` (a speculative step with draft tokens; decoders stall "
        "when the budget cannot pay for all).\n"
        "2. **Free what finished**: `Continuous.commit`, after the iteration ran: a request that emitted its last "
        "token leaves the batch (`Scheduler.exit`) and frees its KV blocks (`free_blocks`).\n"
        "3. **Admit within the budgets**: `plan_prefills` (chunks of prefills under way, swapped-out requests "
        "back first) and `admit_waiting` (the queue in the policy's order, within the token budget, the slot "
        "limit, the KV cache and tenant quotas). A plan only decides: the requests it admits take their slots "
        "when the iteration commits (`Scheduler.bring_in`); all it changes is the KV side, the blocks the batch "
        "needs before it runs, as vLLM's scheduler takes them.\n"
        "4. **Form the batch**: `form_batch` (CUDA-graph padding, the context attention reads, how many "
        "identical iterations follow).\n\n"
        "Before them the executor calls `Scheduler.advance`, whose `at_start` does what time brings at an "
        "iteration's start: arrivals, stops, KV growth and preemption (`Scheduler.grow_due`), preemptive priority; "
        "these are not the plan's decisions. Each request's state is one record "
        "(`sim/core/request.py`, `RequestState`), and decode progress is counted lazily there "
        "(`DecodeRounds`). The plan the scheduler hands its executor, the simulator's cost model or the real "
        "engine's forward pass, is one `Iteration` (`sim/core/iteration.py`)."),
    "guide_fair": (
        "Compare policies only on **the same workload and the same arrival trace**, with **the same model, "
        "hardware and output semantics** (the same first-token rule, the same stopping). When you report a "
        "throughput experiment, also state:\n\n- the **warm-up** runs left out;\n- the **request length "
        "distribution** (prompt and output);\n- the **concurrency limit** (max running sequences);\n- the "
        "**scheduler budgets** (token budget, KV capacity);\n- the **sampling** settings;\n- whether "
        "**streaming** is counted in the latencies.\n\nThe lab keeps the first three the same for both policies "
        "by construction: one trace, one budget form."),

    # What it costs (the cost lesson)
    "nav_costs": "What it costs",
    "unit_s": "s",
    "cost_title": "What continuous batching costs",
    "cost_intro": (
        "The worked example shows what iteration-level scheduling wins. Each win has a price, and ticks hide "
        "it: in the tick model every iteration lasts one tick, so every TPOT is 1. Here iterations take "
        "milliseconds, as on a real server: **c0 + c_prefill × prefill tokens + c_decode × decoding requests "
        "+ c_attn × context read**. Eight costs, each on a trace that shows it, each named on its chart with "
        "its figure. (Lesson 1 reads the worked example's ticks as {ms} ms each.)"),
    "cost_hardware": "Lessons 2–5 run on",
    "cost_hardware_teaching": "a teaching GPU (the linear model)",
    "cost_hardware_real": "a real GPU: Llama-3.1-8B on one L4 (roofline)",
    "cost_hardware_note": (
        "The same traces on a real model and GPU, at real sizes. Lesson 4's KV cache is what the weights leave of "
        "{utilization} of the L4's memory (vLLM's --gpu-memory-utilization, other work sharing the GPU): {blocks} "
        "blocks of 16 tokens."),
    "cost_back": "Back to the worked example",
    "cost_running": "Simulating the eight lessons…",
    "cost_download": "Download this table (CSV)",
    "cost_example_gantt": "The worked example in ms",
    "cost_continuous": "continuous",
    "cost_chunk2": "chunked prefill, 2 tokens",
    "cost_chunk1": "chunked prefill, 1 token",
    "cost_chunk128": "chunked prefill, 128 tokens",
    "cost_fcfs": "strict arrival order (fcfs)",
    "cost_skip": "skip what does not fit (fcfs-skip)",
    "cost_fcfs_chunk": "fcfs + chunked prefill",
    "cost_reserve": "reserve the whole output",
    "cost_overcommit": "overcommit",
    "cost_static": "static",
    "cost_col_a_worst": "A's longest gap",
    "cost_col_a_ttft": "A's TTFT",
    "cost_col_c_ttft": "C's TTFT in ms",
    "cost_col_makespan": "makespan in ms",
    "cost_col_itl_p50": "gap p50",
    "cost_col_itl_p99": "gap p99",
    "cost_col_ratio": "p99 / p50",
    "cost_col_ttft_p90": "TTFT p90",
    "cost_col_ttft_p99": "TTFT p99",
    "cost_col_short_wait": "short, median",
    "cost_col_long_wait": "long, median",
    "cost_col_long_max": "long, longest",
    "cost_col_preemptions": "preemptions",
    "cost_col_recomputed": "tokens prefilled again",
    "cost_col_iterations": "iterations",
    "cost_col_decisions": "scheduling decisions",
    "cost_col_changes": "requests in or out",
    "cost_col_plan": "planning / iteration",
    "cost_interference_title": "Prefill–decode interference",
    "cost_interference_named": "A waits {worst} for a token while C prefills, against {usual} otherwise (+{rise})",
    "cost_interference_story": (
        "The worked example again, a tick of its arrivals read as {tick} (one request's decode "
        "iteration) and each iteration as long as its work takes. **Static batching** keeps C, which "
        "arrives at {c_arrival}, out until A's and B's batch is done: C's first token comes "
        "**{c_static}** after it arrives, and the trace ends at **{end_static}**. **Continuous "
        "batching** admits C at once: its first token after **{c_ttft}**, the end at **{end}**. The "
        "worked example's {c_ticks_static} → {c_ticks} for C's TTFT is **{c_static} → {c_ttft}** here, "
        "and its makespan of {end_ticks_static} → {end_ticks} is **{end_static} → {end}** (the table "
        "gives each figure in both units).\n\nThat admission has a price. C's {c_prompt} prefill tokens "
        "share an iteration with A's and B's decodes: that iteration lasts **{worst}** instead of "
        "**{usual}**, and A waits **+{rise}** for that token. That is prefill–decode interference: a "
        "newcomer's prefill stretches the gap of everyone already decoding. Chunked prefill (Sarathi) "
        "spreads a prompt over several iterations: with 1-token chunks A's longest gap is "
        "**{chunked_worst}**, but prefills finish later: C's TTFT rises from **{c_ttft}** to "
        "**{c_ttft_chunked}**, and A's own from **{a_ttft}** to **{a_ttft_chunked}**."),
    "cost_gap_axis": "gap ({unit})",
    "cost_jitter_title": "TPOT jitter",
    "cost_jitter_named": (
        "token gap p99 {p99} = {ratio}× p50 ({p50}); chunked prefill: {chunked_p99} = {chunked_ratio}×"),
    "cost_jitter_story": (
        "300 requests, 4 a second, with long-tailed prompts (median 200 tokens, some over 2,000). Every dot "
        "is an iteration: most last about **{p50}**, the time between two tokens of a decoding request. An "
        "iteration that carries a long prompt's prefill lasts much longer, and every request decoding in it "
        "waits with it: the p99 gap between tokens is **{p99}**, **{ratio}×** the median. A user sees the "
        "stream stutter. Chunks of 128 tokens cut the p99 to **{chunked_p99}** (**{chunked_ratio}×**), and "
        "pay for it in TTFT: p99 **{ttft}** becomes **{ttft_chunked}**."),
    "cost_iteration_axis": "iteration length ({unit})",
    "cost_hol_title": "Head-of-line blocking and starvation",
    "cost_hol_named": (
        "fcfs: short prompts queue {short_strict} (HOL blocking); fcfs-skip: long ones {long_skip} (starved)"),
    "cost_hol_story": (
        "Short prompts at 10 a second, and every tenth request a prompt of {long} tokens under a budget of "
        "1,024 tokens an iteration: a long prompt fits only when few requests decode. In **strict arrival "
        "order** a long prompt at the head of the queue blocks everyone behind it: short prompts wait "
        "**{short_strict}** at the median (head-of-line blocking). **Skipping** what does not fit lets them "
        "pass (**{short_skip}**), and the long prompts starve: **{long_skip}** at the median, up to "
        "**{long_skip_max}**. Chunked prefill lets a long prompt in piece by piece (long prompts "
        "**{long_chunked}**, short **{short_chunked}**) and pays in every decode's gap: token gap p50 "
        "**{itl}** becomes **{itl_chunked}**."),
    "cost_group_short": "short prompts: median",
    "cost_group_long": "long prompts: median",
    "cost_group_long_max": "long prompts: longest",
    "cost_queue_axis": "queue time ({unit}, log scale)",
    "cost_kv_title": "KV pressure and preemption",
    "cost_kv_named": (
        "overcommit: {preemptions} preemptions, {recomputed} tokens prefilled again; TTFT p99 {ttft} vs "
        "{ttft_reserve}"),
    "cost_kv_story": (
        "The jitter trace again, with a KV cache of {blocks} blocks ({tokens} tokens). **Reserving** blocks "
        "for a request's whole output at admission never runs out, but holds memory that is not used yet, so "
        "fewer requests run: TTFT p99 **{ttft_reserve}**. **Overcommitting** admits as soon as the prompt "
        "fits: TTFT p99 falls to **{ttft}**, and when decodes fill the cache the newest request is preempted "
        "and its KV dropped: **{preemptions}** preemptions, and **{recomputed}** tokens prefilled a second "
        "time ({share} of all prefill work). That is the price of admitting more."),
    "cost_work_title": "The scheduler's work every iteration",
    "cost_work_named": (
        "continuous decides {decisions} times (every iteration), static {static_decisions}; the batch "
        "changes before {changed} iterations"),
    "cost_work_story": (
        "The jitter trace under static and continuous batching, each planned one iteration at a time. "
        "Static batching decides once a batch: **{static_decisions}** times. Continuous batching decides "
        "again every iteration, **{decisions}** times, and its batch changes before **{changed}** of "
        "them (**{share}**). Both move the same requests in and out: each request joins the batch once "
        "and leaves it once, **{moves}** joins and leaves in all under either policy. Static batching "
        "makes them in **{static_changed}** batch changes, a whole batch leaving and the next one coming "
        "in (**{static_per}** requests a change); continuous batching a few at a time (**{per}** a "
        "change). Each change means new batch tensors and block tables in a real engine, work that "
        "happens on the CPU between two forward passes. Planning one iteration took **{plan}** for "
        "continuous batching and **{static_plan}** for static: this simulator's Python on this server, "
        "measured once, when the server started (the median of three runs after a warm-up), so every "
        "visit shows the same figures."),
    "cost_group_decisions": "scheduling decisions",
    "cost_group_changed": "iterations after a batch change",
    "cost_work_axis": "count (log scale)",
    "cost_hidden_title": "What these pictures still leave out",
    "cost_hidden": (
        "- The latency model is linear: a real GPU's iteration time is flat until the batch fills its "
        "compute, then rises; the real-model page measures one.\n- Planning time is this simulator's Python, "
        "not vLLM's; in a real engine the batch's tensors, sampling and detokenization add CPU time every "
        "iteration.\n- Preemption by recompute is modelled as prefill work again; swapping to host memory "
        "costs PCIe time instead (the trace lab's swap option)."),
    "unit_us": "µs",
    "cost_gap_between": "token {a} → {b}",
    "cost_col_c_ttft_ticks": "C's TTFT in ticks",
    "cost_col_makespan_ticks": "makespan in ticks",
    "cost_col_changed": "batch changes",
    "cost_col_per_change": "per batch change",
    "cost_static_short": "static",
    "cost_continuous_short": "continuous",
    "cost_chunk2_short": "chunks of 2",
    "cost_chunk1_short": "chunks of 1",
    "cost_chunk128_short": "chunks of 128",
    "cost_fcfs_short": "fcfs",
    "cost_skip_short": "fcfs-skip",
    "cost_fcfs_chunk_short": "fcfs + chunks",
    "cost_reserve_short": "reserve",
    "cost_overcommit_short": "overcommit",
    "cost_lpm_fcfs_short": "arrival order",
    "cost_lpm_lpm_short": "longest prefix",
    "cost_interference_topic": "the worked example in ms and prefill–decode interference",
    "cost_jitter_topic": "TPOT jitter",
    "cost_hol_topic": "head-of-line blocking and starvation",
    "cost_kv_topic": "KV pressure and preemption",
    "cost_work_topic": "the scheduler's work",
    "cost_moe_topic": "MoE routing",
    "cost_stream_topic": "a slow reader holding KV memory",
    "cost_lpm_topic": "cache-aware order",
    "cost_about": "What these lessons measure, and how",

    # Capacity lab (sweeps)
    "nav_capacity": "Capacity lab",
    "sw_title": "Capacity lab: how much load before the SLO breaks?",
    "sw_intro": (
        "Run the same trace through two to four policies while one parameter moves: the arrival rate, the "
        "token budget, the sequence limit, the chunk size, the KV blocks, or a fleet's shape (its replicas, or how "
        "many of a split's engines prefill). **Goodput** (DistServe) counts "
        "only requests that meet every SLO; the **knee** is the largest load a policy takes while at least "
        "the target share of requests still meets it."),
    "sw_trace": "1. The trace",
    "sw_source": "Trace source",
    "sw_source_generated": "generated",
    "sw_source_upload": "upload a real trace",
    "sw_source_lab": "the trace lab's trace",
    "sw_generator": "Generator settings",
    "sw_upload_first": "Choose a file (Azure, Mooncake, BurstGPT or native CSV/JSON) and press Import.",
    "sw_lab_bad": "The trace lab's table has problems; fix them in the trace lab first:",
    "sw_trace_summary": (
        "{n} requests arriving over {span} ticks ({rate} a tick on average); mean prompt {prompt} and "
        "mean output {output} tokens."),
    "sw_policies": "2. Policies, budgets and SLOs",
    "sw_policies_intro": (
        "One row a policy (two to four), each with its own budgets. 0 means no limit (sequences, KV blocks) "
        "or off (chunked prefill). Continuous-only options (chunks, overcommit) must stay off for static "
        "rows."),
    "sw_col_label": "policy",
    "sw_col_batching": "batching",
    "sw_col_order": "order",
    "sw_col_budget": "budget",
    "sw_col_max_seqs": "max seqs",
    "sw_col_chunk": "chunk size",
    "sw_col_kv_blocks": "KV blocks",
    "sw_col_kv_admission": "KV admit",
    "sw_col_preempt": "preempt",
    "sw_policy_count": "Give one to {most} policies (rows).",
    "sw_policy_label": "Policy row {row}: give it a name no other row has.",
    "sw_policy_bad": "Policy row {row} ({label}): {reason}",
    "sw_target": "Attainment target",
    "sw_cost_help": (
        "Ticks: every iteration one tick. Measured profile: each iteration takes the time the real engine took on "
        "this machine for a batch of that shape. A real GPU: each iteration takes a real model's roofline time on a real "
        "GPU. Under either, arrivals and latencies are in ms."),
    "sw_cost_roofline_note": "Each tick of the trace is read as 1 ms.",
    "sw_cost_profile_note": "The sweep runs as this machine would serve it: each tick of the trace is read as 1 ms.",
    "sw_target_help": "The knee is the largest load at which at least this share of requests meets every SLO.",
    "sw_sweep": "3. The sweep",
    "sw_parameter": "Swept parameter",
    "sw_parameter_help": (
        "The arrival rate multiplies the trace's own rate (2 = the same requests arriving twice as fast; "
        "arrivals are rounded down to whole ticks). The other parameters replace every policy's own value. Replicas "
        "run each row on that many engines behind its router; a split's prefill engines move engines between its "
        "prefill and decode sides, their number kept, while rows side by side stay as they are: the baseline."),
    "sw_param_rate": "arrival rate (x the trace's)",
    "sw_param_token_budget": "token budget",
    "sw_param_max_seqs": "max sequences",
    "sw_param_chunk_size": "chunk size",
    "sw_param_kv_blocks": "KV blocks",
    "sw_low": "from",
    "sw_high": "to",
    "sw_points": "points",
    "sw_bad_range": "The range cannot be swept: {reason}",
    "sw_low_high": "'to' must be larger than 'from'.",
    "sw_too_much": (
        "This sweep would simulate {work} requests (points x policies x trace); the web app takes up to "
        "{most}. Use fewer points or requests here, or run `python -m sim sweep` from the command line."),
    "sw_run": "Run the sweep",
    "sw_running": "Simulating point {done} of {total}...",
    "sw_press_run": "Press **Run the sweep**.",
    "sw_stale": "The inputs changed since this sweep ran: press Run the sweep to update it.",
    "sw_knees": "Knees",
    "sw_budget_fitted": "The policies' token budget is now {budget}, so the largest prompt of this trace fits.",
    "sw_knee_rate": (
        "- **{policy}** keeps at least {target} of requests within every SLO up to **{value}x** the trace's "
        "arrival rate ({rate} requests a tick)."),
    "sw_knee_capacity": (
        "- **{policy}** keeps at least {target} of requests within every SLO from a {parameter} of "
        "**{value}** upwards."),
    "sw_knee_none_load": "- **{policy}** misses {target} even at the lightest load swept.",
    "sw_knee_none_capacity": "- **{policy}** misses {target} even at the largest value swept.",
    "sw_knee_rate_edge": (
        "- **{policy}** keeps at least {target} of requests within every SLO at every load swept, up to **{value}x** "
        "the trace's arrival rate ({rate} requests a tick), the end of the sweep: its knee lies beyond."),
    "sw_knee_capacity_edge": (
        "- **{policy}** keeps at least {target} of requests within every SLO at every {parameter} swept, down to "
        "**{value}**, the start of the sweep: its knee lies below."),
    "sw_knee_edge_rate": "≥ {value} (the end of the sweep)",
    "sw_knee_edge_capacity": "≤ {value} (the start of the sweep)",
    "sw_col_replicas": "replicas",
    'sw_col_replicas_help': "Identical engines, each with this row's budgets and KV cache, behind the router. 1: one engine.",
    "sw_col_router": "router",
    "sw_col_router_help": "How a request is placed when it arrives (on a split: on a prefill engine). prefix-affinity needs the prefix cache.",
    "sw_col_prefill_replicas": "prefill",
    "sw_col_prefill_replicas_help": "Engines that prefill each request and make its first token (a split instead of replicas; 0: no split). The first token must come from the prefill.",
    "sw_col_decode_replicas": "decode",
    'sw_col_decode_replicas_help': "Engines that decode a request once its prompt's KV blocks land (the one with the fewest requests).",
    "sw_col_kv_transfer_latency": "latency",
    'sw_col_kv_transfer_latency_help': "The time a split's KV transfer takes before its blocks, in ticks (ms under the measured profile).",
    "sw_col_kv_transfer_per_block": "per block",
    "sw_col_kv_transfer_per_block_help": "The time a transfer takes a KV block, in ticks (ms under the measured profile).",
    "sw_col_engines": "engines",
    "sw_param_replicas": "replica count",
    "sw_param_prefill_replicas": "prefill engines of a split",
    "sw_short_replicas": "replicas",
    "sw_short_prefill_replicas": "prefill",
    "sw_best_split_label": "best split of {policy}: {value}",
    "sw_split_best": "- **{policy}**: the best split of its {engines} engines is **{split}** (prefill + decode), with {attainment} of requests within every SLO.",
    "sw_split_best_misses": "- **{policy}** misses {target} at every split of its {engines} engines: its best, **{split}** (prefill + decode), keeps {attainment} of requests within every SLO.",
    'sw_split_baseline': "- **{policy}** runs its {engines} engines side by side, the same at every point: {attainment} of requests within every SLO, the splits' baseline.",
    "sw_throughput_per": "tokens/{unit}",
    "sw_columns": "Columns",
    "sw_columns_policy": "batching and queue order",
    "sw_columns_budgets": "budgets (tokens, sequences, chunks)",
    "sw_columns_kv": "KV cache (blocks, admission, preemption)",
    "sw_columns_prefix": "prefix cache",
    "sw_columns_fleet": "fleet (replicas and router)",
    "sw_columns_split": "prefill/decode split (engines)",
    "sw_columns_transfer": "a split's KV transfer (latency, per block)",
    "sw_hidden_differ": "The rows also differ in columns not shown: {columns}.",
    "sw_knee_label": "knee of {policy}: {value}",
    "sw_why": "Why a curve goes against intuition",
    "sw_why_attainment": (
        "**{ahead}** does worse than **{behind}** at {value}: {a} against {b} of requests within every SLO."),
    "sw_why_throughput": "**{ahead}** makes fewer tokens than **{behind}** at {value}: {a} against {b} tokens a tick.",
    "sw_why_starves_ahead": (
        "Long prompts starve under **{policy}**: its slowest 1% of requests have prompts of {slow} tokens on "
        "average (the trace's mean is {mean}). A prompt is admitted only whole, the decoders leave less "
        "budget than a long prompt needs, and shorter prompts are let past it."),
    "sw_why_starves_behind": (
        "**{policy}** gets there by starving long prompts: its slowest 1% of requests have prompts of {slow} "
        "tokens on average (the trace's mean is {mean}); the short ones pass them and still meet the SLO."),
    "sw_why_idle": (
        "{idle} of the token budget of **{policy}** sat idle while requests waited ({other} for **{them}**): "
        "nothing waiting fit in what was left."),
    "sw_why_order": (
        "**{policy}** serves the queue in arrival order, so once the load passes what it can serve every "
        "request waits: TTFT p50 {a} against {b} ticks for **{them}**."),
    "sw_why_none": "Every curve here goes the way intuition says: no policy that should do better does worse.",
    "sw_default_note": (
        "The default: prompts of 1–8 tokens under a budget of 12 tokens a tick, so the longest prompt fits "
        "beside four decoders. Set the budget to the seed's 8 and a prompt of 8 can start only in a tick in "
        "which nobody decodes: continuous batching then leaves budget idle while long prompts starve, and "
        "its knee falls to static's. The page says so under the charts when it happens."),
    "sw_tpot_flat": (
        "TPOT is {value} {unit} at every point: in the tick model a decoding request makes one token a tick. "
        "The cost lesson measures TPOT in milliseconds, where it does move."),
    "sw_chart_idle": "Budget idle while requests waited (% of the token budget)",
    "sw_target_line": "target {target}",
    "sw_failed": "{n} points could not run (they count as missing the SLO):",
    "sw_point_stopped": "stopped after {seconds} s of computing, at {time}",
    "sw_stopped_why": (
        "A point is stopped when its iterations cannot merge (speculative decoding, MoE routing, slow stream "
        "clients or small prefill chunks plan one at a time) and there are too many for this shared server. "
        "Shorten the longest requests, or sweep the trace with `python -m sim sweep`, which has no limit."),
    "sw_rate_axis": " (1 = {rate} requests a tick)",
    "sw_chart_attainment": "SLO attainment (% of requests meeting every SLO)",
    "sw_chart_goodput": "Goodput (requests meeting every SLO per {unit})",
    "sw_chart_ttft": "TTFT: p50 solid, p90 dashed, p99 dotted",
    "sw_chart_tpot": "TPOT: p50 solid, p90 dashed, p99 dotted",
    "sw_chart_throughput": "Throughput (output tokens per {unit})",
    "sw_per_unit": "requests / {unit}",
    "sw_tokens_per_unit": "tokens / {unit}",
    "sw_table": "Every point",
    "sw_goodput": "goodput (req/tick)",
    "sw_attainment_pct": "SLO met %",
    "sw_ttft_col": "TTFT p{q} ({unit})",
    "sw_idle_pct": "idle budget %",
    "sw_idle_left": "To fit the screen, the table leaves each point's idle budget to the CSV below.",
    "sw_short_rate": "load (×)",
    "sw_short_token_budget": "budget",
    "sw_short_max_seqs": "max seqs",
    "sw_short_chunk_size": "chunk",
    "sw_short_kv_blocks": "KV blocks",
    "sw_prefix_example": "Example: prefix caching",
    "sw_prefix_example_help": (
        "Loads a Mooncake-shaped trace (600 requests: conversations of three turns that all start with the "
        "same 48-token system prompt) and sweeps its load with and without the prefix cache, everything "
        "else equal."),
    "sw_split_example": "Example: split prefill from decode",
    "sw_split_example_help": "Loads 400 requests at 0.6 a ms (prompts of 32–192 tokens) on this machine's measured profile, where a prefill beside decoders makes their iteration long, and sweeps how many of 4 engines prefill: 4 side by side against 4 split over a fast link and over a slow one, under a TTFT SLO of 100 ms and a TPOT SLO of 2 ms.",
    "sw_split_side": "4 side by side",
    "sw_split_fast": "split, fast link",
    "sw_split_slow": "split, slow link",
    "sw_prefix_off": "no prefix cache",
    "sw_prefix_on": "prefix cache",
    "sw_default_static": "static",
    "sw_default_continuous": "continuous",
    "sw_default_chunked": "chunked prefill",
    "sw_download": "Download the sweep (CSV)",
    "dl_prom_tick_ms": "1 tick = ? ms (for the Prometheus export)",
    "dl_prom_tick_help": "Prometheus and vLLM measure time in seconds; say how long a tick is.",
    "dl_prom_ms": "Times are in ms; the export writes seconds.",
    "dl_prometheus": "Metrics of {label} (Prometheus, vLLM names)",
    "dl_prometheus_help": (
        "The run's metrics in Prometheus text format with vLLM's metric names and histogram buckets "
        "(vllm:time_to_first_token_seconds, ...). Gauges hold the mean over the run; the README maps each "
        "metric and says where the definitions differ."),

    # -- Streaming backpressure and the request lifecycle --
    "cost_stream_title": "A slow reader holds KV memory",
    "cost_stream_named": (
        "paused with {credits} credits, the slow request holds {blocks} of {capacity} blocks for {e2e}; others' "
        "TTFT p50 {ttft} → {ttft_paused}"),
    "cost_stream_story": (
        "One client reads only **{rate} tokens a second**, while forty other requests come and go through a KV "
        "cache of {capacity} blocks. With **no bound** on what a request may hold unread, the server makes all "
        "{output} of the slow request's tokens in **{made}** and keeps them in an output buffer until the client "
        "has read them (memory outside the KV cache, which the bound exists to cap). With **{credits} stream "
        "credits**, the request may be at most {credits} tokens ahead of its client: it is **paused** for "
        "**{paused}** of its **{e2e}**, and all that time it keeps its slot and its **{blocks} KV blocks**. The "
        "others wait for that memory: their TTFT p50 goes from **{ttft}** to **{ttft_paused}** (p90 "
        "{p90_paused}). **Releasing** the paused request gives its blocks back at once (others' TTFT p50 "
        "**{ttft_released}**), but it is preempted **{preemptions}** times and **{recomputed}** tokens are "
        "prefilled again each time its client catches up. The Gantt chart below shows the paused segments."),
    "cost_stream_gantt": "{credits} credits, paused in place: the slow request and the first {others} others",
    "cost_unbounded": "no bound (buffer everything)",
    "cost_credits_paused": "credits, paused in place",
    "cost_credits_released": "credits, paused request released",
    "cost_col_slow_e2e": "slow one's E2E",
    "cost_col_slow_paused": "slow one paused",
    "cost_col_others_ttft_p50": "others' TTFT p50",
    "cost_col_others_ttft_p90": "others' TTFT p90",
    "rm_source_slow_reader": "a client reads slowly",
    "rm_source_disconnect": "a client disconnects",
    "rm_scenario_slow_reader": (
        "Request 2's client reads {rate} tokens a second, slower than the model makes them. Policy 2 has "
        "{credits} stream credits: the engine pauses request 2 whenever {credits} of its tokens are unread, and "
        "it keeps its slot and KV blocks meanwhile (the paused segments in Policy 2's Gantt chart). Policy 1 has no "
        "credits: the server runs ahead and buffers what the client has not read."),
    "rm_scenario_disconnect": (
        "Request 2's client goes away {after} iterations after it arrives: the engine stops it at the next "
        "iteration boundary and frees its slot and KV blocks at once; the token made in the iteration under way "
        "is never delivered (wasted). Policy 1 runs static batching, Policy 2 continuous."),
    "opt_short_stream_credits": "{value} stream credits",
    "opt_short_release_paused": "paused release their slot",
    "cost_col_figure": "figure",
    "cost_unbounded_short": "no bound",
    "cost_credits_paused_short": "paused",
    "cost_credits_released_short": "released",
    "phase_paused": "paused (client)",
    "event_disconnect": "client left",
    "hover_event_disconnect": "<b>%{y}</b>: its client goes away at %{x}",
    "reason_disconnected": "client left",
    "m_disconnected": "requests whose client left",
    "m_unsent_tokens": "tokens made, never read",
    "col_disconnected": "client left",
    "cfg_read_rate": "Client read rate, tokens a time unit (0 = as fast as they come)",
    "cfg_read_rate_help": (
        "How fast each client reads its stream, for requests whose trace has no read_rate column. With stream "
        "credits, a request whose client falls behind stops decoding until it catches up."),
    "stream_settings": "Streaming to clients (backpressure)",
    "stream_about": (
        "Each request streams its tokens to a client that reads them at its own pace: the trace's read_rate "
        "column (tokens a time unit) or the rate below. A client may go away: the disconnect_at column. With a "
        "policy's stream credits, a request may hold at most that many tokens its client has not read; with none "
        "left it is paused: it keeps its batch slot and KV blocks but does not decode. Tokens made and never read "
        "are the waste."),
    "opt_stream_credits": "Stream credits: unread tokens a request may hold (0 = no limit)",
    "opt_stream_credits_help": (
        "Bounded output buffering, as a server's per-stream flow-control window: with this many tokens made and "
        "not yet read by its client, a request does not decode (it is paused, holding its slot and KV blocks)."),
    "opt_release_paused": "A paused request gives its slot up",
    "opt_release_paused_help": (
        "Instead of holding its slot and KV blocks while its client catches up, a paused request is preempted "
        "(recompute or swap, as chosen) and queues again once its client has read enough."),

    # -- The real engine's options: speculative decoding, swap, CUDA graphs --
    "rm_kv_blocks": "KV cache blocks (0 = room for every slot)",
    "rm_kv_blocks_help": (
        "The model's paged KV cache, in blocks of 4 tokens. A small cache with overcommit admission makes the "
        "engine preempt requests when it runs out: by recompute, or by swap (their blocks copied to host memory and "
        "back)."),
    "rm_spec": (
        "**{label}** · speculative decoding by self-speculation: the model's own first layer drafts {k} tokens a "
        "step, and the whole model verifies them in the batched forward pass. {accepted} of {proposed} draft tokens "
        "accepted: **{rate}**. The simulator's prediction below draws the steps with this acceptance rate."),
    "rm_spec_none": "{label}: no draft token was proposed (every step made a request's last token).",
    "rm_spec_to_lab": "Give the lab's {label} this policy, with acceptance {rate}",
    "rm_spec_to_lab_help": (
        "The trace lab's {label} becomes this policy, with the acceptance rate measured here, so that the "
        "simulator draws the same speculation as this run."),
    "rm_spec_in_lab": "The lab's {label} now drafts {k} tokens a step, accepted at {rate}.",
    "rm_swap_title": "{label} · swap copies of KV blocks, measured",
    "rm_swap_out": "copied out to host memory",
    "rm_swap_in": "copied back in",
    "rm_swap_hover": "<b>%{y}</b> at %{x:.1f} ms: %{customdata[0]} KV blocks in %{customdata[1]} ms",
    "rm_swap_caption": (
        "{copies} copies of KV blocks between the cache and host memory ({where}) took {ms} ms in all, {share} of "
        "the run's {makespan} ms. Each marker is one copy (hover for its blocks and time); the Gantt chart above "
        "shows each swapped request's wait and the iteration that brought it back."),
    "rm_swap_where_cpu": "a separate tensor pool on the CPU",
    "rm_swap_where_cuda": "pinned host memory",
    "rm_swap_none": (
        "{label}: no request was swapped out (the KV cache had room). Set fewer KV blocks and overcommit admission "
        "to see swaps."),
    "rm_graph_title": "{label} · decode iterations and CUDA graphs",
    "rm_graph_replayed": "rows, replayed graph",
    "rm_graph_eager": "rows, eager",
    "rm_graph_rows": "rows computed",
    "rm_graph_hover": "from %{{customdata[0]}} ms, %{{customdata[1]}} ms long<br>{kind}: %{{y}}",
    "rm_graph_cpu": (
        "CUDA graphs need a CUDA device: on this CPU every batch ran eagerly, and the {padding} rows that pad "
        "decode batches up to the buckets ({buckets}) were computed as planned, {share} of the decode rows."),
    "rm_graph_cuda": (
        "{replayed} of {decodes} decode iterations replayed a captured CUDA graph (buckets {buckets}); {eager} ran "
        "eagerly (larger than the largest bucket, or with speculative steps). The padding paid for the graphs: "
        "{padding} rows, {share} of the decode rows."),

    # -- MoE routing --
    "moe_settings": "MoE routing (simulated; the same for both policies)",
    "moe_simulated_only": (
        "Simulated only: the real-model page's tiny transformer is dense and has no experts. With experts > 0, "
        "every iteration's tokens (prefill tokens and decode token-work, not padding) are routed, seeded, each to "
        "top-k distinct experts chosen by a Zipf popularity. 0 experts: a dense model."),
    "moe_formula": (
        "Each iteration takes, on top of the cost model: **c_expert × the busiest expert's token choices + c_a2a × "
        "the choices that cross devices** (ms). The experts are split evenly over the devices; of the choices sent "
        "to a device, 1/devices (rounded down) come from tokens already there, the rest cross."),
    "moe_formula_ticks": (
        "Under the tick model every iteration stays one tick: the expert loads are routed and drawn, but cost no "
        "time. Choose a latency model (ms) to see what they cost: c_expert × the busiest expert's choices + c_a2a "
        "× the choices that cross devices."),
    "cfg_moe_experts": "Experts (0 = dense, no MoE)",
    "cfg_moe_experts_help": "Experts a token can be routed to (Mixtral has 8, DeepSeek-V3 256); at most 1,024.",
    "cfg_moe_top_k": "Experts per token (top-k)",
    "cfg_moe_top_k_help": "Each token goes to this many distinct experts.",
    "cfg_moe_skew": "Popularity skew (Zipf exponent)",
    "cfg_moe_skew_help": (
        "0: every expert equally popular. Larger: the expert of popularity rank r is chosen in proportion to "
        "1 / (r + 1)^skew, so a few experts get most tokens. At most 10."),
    "cfg_moe_devices": "Devices (expert parallelism)",
    "cfg_moe_devices_help": (
        "The experts are split evenly over this many devices (it must divide the experts); a token choice whose "
        "expert is on another device crosses in the all-to-all."),
    "cfg_moe_c_expert": "c_expert (ms/choice, busiest expert)",
    "cfg_moe_c_expert_help": (
        "Every expert waits for the busiest one: the iteration gains c_expert × its token choices."),
    "cfg_moe_c_a2a": "c_a2a (ms/choice crossing devices)",
    "cfg_moe_c_a2a_help": (
        "The all-to-all sends each choice whose expert is on another device: the iteration gains c_a2a × their "
        "number."),
    "cfg_moe_seed": "Routing seed",
    "cfg_moe_seed_help": "The same trace, settings and seed give the same routing.",
    "moe_heatmap_title": "Expert load per iteration · {policy}",
    "moe_heatmap_first": "the first {n} of {total} iterations",
    "moe_axis_tokens": "tokens",
    "moe_axis_iteration": "iteration",
    "moe_axis_expert": "expert",
    "moe_hover": "iteration %{x} · expert %{y}: %{z} tokens",
    "moe_heatmap_note": (
        "Each column is one iteration, each row one expert; the colour is the tokens routed to it. A column's "
        "busiest expert sets that iteration's expert time (c_expert × its tokens), so iterations of the same "
        "token count can take different times."),
    "moe_heatmap_note_ticks": (
        "Each column is one iteration, each row one expert; the colour is the tokens routed to it. Under the tick "
        "model these loads cost no time: choose a latency model (ms) to see what they cost."),
    "cost_moe": "continuous batching, MoE routing",
    "cost_moe_title": "MoE: the same batch size, different times",
    "cost_moe_named": (
        "{tokens} tokens each: {fast_ms} when the busiest expert takes {fast_load}, {slow_ms} when it takes "
        "{slow_load} (+{rise})"),
    "cost_moe_story": (
        "A mixture-of-experts layer sends each token to its top {k} of {experts} experts; the experts work in "
        "parallel, so the layer waits for the busiest one, and a token whose expert sits on another of the "
        "{devices} devices crosses over in an all-to-all. The simulator adds **c_expert × the busiest expert's "
        "token choices + c_a2a × the choices that cross devices** to each iteration (here {c_expert} and {c_a2a} "
        "ms), popular experts being chosen more often (Zipf skew 1).\n\n"
        "Iterations {fast} and {slow} are the fastest and the slowest of the {n} iterations that decode {tokens} "
        "requests: both carry {tokens} tokens, {choices} expert choices and the same dense work ({dense}). In "
        "iteration {fast} the busiest expert (expert {fast_expert}) takes {fast_load} of the choices; in iteration "
        "{slow}, expert {slow_expert} takes {slow_load}, so it takes **{slow_ms} instead of {fast_ms}** (+{rise}). "
        "Batch size alone cannot predict an MoE iteration's latency."),
    "cost_moe_expert": "expert {e}",
    "cost_moe_iteration": "iteration {n} · {ms}",
    "cost_moe_axis": "token choices routed",
    "cost_moe_heatmap": "Expert load per iteration (the two iterations marked)",
    "cost_moe_mark": "#{n}",
    "cost_col_choices": "expert choices (tokens × top-k)",
    "cost_moe_fastest": "iteration {n} (fastest)",
    "cost_moe_slowest": "iteration {n} (slowest)",
    "cost_col_tokens": "tokens (requests decoding)",
    "cost_col_busiest": "busiest expert",
    "cost_col_busiest_load": "its token choices",
    "cost_col_crossing": "choices crossing devices",
    "cost_col_dense": "dense part",
    "cost_col_expert_ms": "c_expert × busiest",
    "cost_col_a2a_ms": "c_a2a × crossing",
    "cost_col_total": "iteration time",

    # -- Prefix caching and real engines' presets --
    "opt_order_lpm": "longest prefix match (SGLang)",
    "opt_victim_newest": "last admitted",
    "opt_prefix_cache": "Prefix caching",
    "opt_prefix_cache_help": (
        "Automatic prefix caching (vLLM, SGLang's radix cache): a full KV block keeps what it holds, and a "
        "request whose prompt starts with the same tokens reuses it instead of prefilling them. Needs a KV "
        "cache size."),
    "opt_short_prefix_cache": "prefix cache",
    "opt_preset": "A real engine's scheduler",
    "opt_preset_help": (
        "Reproduce a real engine's scheduling rules; the options it sets are its own (see the sentence "
        "under it)."),
    "opt_preset_": "none (the options below)",
    "opt_preset_nano_vllm": "nano-vllm",
    "opt_preset_vllm_v1": "vLLM v1",
    "opt_preset_sglang": "SGLang",
    "opt_preset_trt_guaranteed_no_evict": "TRT-LLM, guaranteed no evict",
    "opt_short_preset": "{value}",
    "preset_about_nano_vllm": (
        "nano-vllm (commit 9e8507ef): a step prefills or decodes, never both; strict arrival order; max "
        "sequences bounds a step, not the running set; the newest request is preempted when a decode needs "
        "a block; prefix caching always on. Held to nano-vllm's own code, token by token."),
    "preset_about_vllm_v1": (
        "vLLM v1 (0.33.0), token for token as vLLM's own scheduler: running requests first under one token "
        "budget, then waiting ones in arrival order with chunked prefill, each only if its whole prompt's KV "
        "blocks are free; blocks taken chunk by chunk as tokens come, the last admitted preempted when they "
        "run out, nobody admitted in a step that preempted; prefix caching."),
    "preset_about_sglang": (
        "SGLang (ad0119fd): waiting requests ordered by the longest prefix the radix cache holds (arrival "
        "order past 128 waiting), chunked prefill, preemption by recompute."),
    "preset_about_trt_guaranteed_no_evict": (
        "TensorRT-LLM's guaranteed-no-evict capacity scheduler: a request starts only when KV for its "
        "whole sequence is free, in arrival order, so nothing is ever evicted."),
    "cfg_prefix_block": "Tokens a hash id covers",
    "cfg_prefix_block_help": (
        "For traces with hash_ids (Mooncake's prefix-block hashes): the tokens each id covers, 512 for "
        "Mooncake. The KV block size must divide it for prefix caching to find shared blocks."),

    "marker_cached": "prefix cache hit",
    "hover_cached": "<b>%{y}</b>: %{customdata} prompt tokens found in the prefix cache (not prefilled)",
    "kv_total_shared": "blocks in use (a shared block counted once)",

    "preset_shared_prefix": "Shared prefixes (prefix caching)",
    "preset_shared_prefix_note": (
        "Every conversation starts with the same 48-token system prompt and each turn resends the last "
        "one's prompt (its hash_ids column names the shared blocks, as Mooncake's traces do). Policy 2 "
        "caches prefixes: watch the stars in its Gantt chart (tokens found in the cache, not prefilled), the hit "
        "rate, and TTFT fall."),

    "rm_source_shared_prompt": "one shared system prompt",
    "rm_scenario_shared_prompt": (
        "Eight questions arrive one an iteration, each after the same system message, “{system}”: every "
        "prompt starts with the same bytes (under a chat template, its header too). Policy 2 caches "
        "prefixes: the first request computes the shared blocks, and each later one finds them, reads the "
        "very same KV blocks (their ids are in both block tables) and prefills only its own question. "
        "Policy 1 prefills every prompt whole."),
    "rm_prefix": (
        "**{label}**: the prefix cache held **{hit}** of the **{queried}** prompt tokens looked up "
        "(**{rate}**), so the model prefilled {prefilled} tokens."),
    "rm_prefix_ttft": (
        "Measured TTFT p50: **{before}** without the cache ({without}), **{after}** with it "
        "({cached}), {change}: a request that finds its prefix prefills only what is new."),
    "m_prefix_hit_rate": "prefix cache hit rate, by token",

    "col_read_rate": "read rate",
    "help_read_rate": "Tokens its client reads a time unit (empty: as fast as they come).",
    "col_disconnect_at": "client leaves",
    "help_disconnect_at": "When its client goes away (empty: it stays).",
    "col_hash_ids": "hash ids",
    "help_hash_ids": (
        "Prefix-block hashes of its prompt, whole numbers separated by spaces (Mooncake's hash_ids): equal "
        "ids, equal tokens, so the prefix cache can share them."),

    "sw_col_prefix_cache": "prefix cache",
    "sw_col_hit_rate": "hit rate",

    "cost_lpm_title": "Cache-aware order: more hits, and who waits",
    "cost_lpm_named": (
        "longest prefix first: hit rate {hit_fcfs} → {hit_lpm}; chats' TTFT p50 {chat_fcfs} → {chat_lpm}, "
        "loners' {loner_fcfs} → {loner_lpm}"),
    "cost_lpm_story": (
        "Chats share one of {groups} system prompts of {system} tokens; every sixth request is a loner "
        "whose prompt nobody shares. The KV cache ({blocks} blocks of 16) cannot keep every system prompt, "
        "and both policies cache prefixes. In **arrival order** the groups take turns and evict each "
        "other's prompts: the cache finds **{hit_fcfs}** of the prompt tokens. **Longest prefix match** "
        "(SGLang's lpm) admits first the waiting requests whose prompt the cache holds longest, so a group "
        "runs together while its prompt is cached: **{hit_lpm}** found, and the chats' TTFT p50 falls from "
        "**{chat_fcfs}** to **{chat_lpm}**. The price is paid by the loners, who never have a cached "
        "prefix and keep being passed over: their TTFT p50 rises from **{loner_fcfs}** to **{loner_lpm}**. "
        "That is starvation; SGLang bounds it only by falling back to arrival order when more than 128 "
        "wait."),
    "cost_lpm_fcfs": "cache, arrival order",
    "cost_lpm_lpm": "cache, longest prefix first",
    "cost_lpm_chats": "chats (shared system prompts)",
    "cost_lpm_loners": "loners (prompts of their own)",
    "cost_ttft_p50_axis": "TTFT p50 ({unit})",
    "cost_col_hit_rate": "hit rate",
    "cost_col_chat_ttft": "chats' TTFT p50",
    "cost_col_loner_ttft": "loners' TTFT p50",

    # -- Tokenizer and chat template --
    "col_system": "system message",
    "col_messages": "messages",
    "help_text": "The user's message: the prompt in words. With no prompt, its UTF-8 bytes are the prompt tokens.",
    "help_system": "A system message that goes before the text (optional).",
    "help_messages": 'A whole conversation instead of a text: [{"role": "user", "content": "..."}, ...].',
    "prob_msg_not_json": "is not JSON: {detail}",
    "prob_msg_not_list": 'must be a JSON list of messages, each {{"role": ..., "content": ...}}',
    "prob_msg_bad_item": 'message {index} is not an object with a "role" and a "content"',
    "prob_msg_bad_role": "message {index} has the role {role}; a role is system, user or assistant",
    "prob_msg_empty": "message {index} has no text as its content",
    "prob_msg_and_text": "holds a conversation, and the row also has a text or a system message: give one or "
                         "the other",
    "chat_title": "Prompts in words: chat template and tokenizer",
    "chat_intro": (
        "A server never counts a prompt's characters. It first wraps the messages in its model's **chat "
        "template** (role markers, the end of each turn, the opening of the answer), then its **tokenizer** cuts "
        "that text into tokens. That count is the prompt the scheduler admits and the prefill budget pays for. "
        "Type a message, or pick a request of the trace that has a text, and compare two tokenizers."),
    "chat_source": "Messages",
    "chat_source_help": "Type a system and a user message, or take those of a request in the trace above.",
    "chat_source_typed": "typed below",
    "chat_source_row": "request {name}",
    "chat_system": "System message",
    "chat_system_help": "Optional: instructions that go before the user's message. Leave it empty for none.",
    "chat_user": "User message",
    "chat_example_system": "You are a helpful assistant. Answer briefly.",
    "chat_example_user": "Write a Python function that reverses a list.",
    "chat_template": "Chat template",
    "chat_template_help": "How the messages become one text, as each model family's server writes it.",
    "chat_tpl_none": "none: the text as it is",
    "chat_tpl_chatml": "ChatML (<|im_start|>)",
    "chat_tpl_llama3": "Llama 3 (<|eot_id|>)",
    "chat_tpl_llama2": "Llama 2 ([INST])",
    "chat_tokenizer": "Prompt counted with",
    "chat_tokenizer_help": "The count that goes into the trace when you press the button below.",
    "chat_tok_bytes": "bytes (the tiny model's)",
    "chat_tok_classroom-bpe": "classroom BPE (subword)",
    "chat_tokens": "{n} tokens",
    "chat_templated": "**The templated text** ({chars} characters): what the model reads",
    "chat_bytes_note": (
        "One token a UTF-8 byte, 256 in all: an ASCII character is one byte, a Chinese character three "
        "(shown as their bytes in hex, <E4>)."),
    "chat_bpe_note": (
        "A byte-level BPE of {vocab} tokens learned from the tiny model's corpus (Python's standard library): "
        "frequent pieces of English and Python are one token each, each template marker is one special token."),
    "chat_shown_first": "The first {shown} of {n} tokens are shown.",
    "chat_ratio": "**{bytes} bytes against {bpe} BPE tokens**: {ratio} bytes a BPE token.",
    "chat_fallback": (
        "The {chars} characters outside ASCII are {bytes} bytes and {bpe} BPE tokens. The BPE learned from English "
        "and Python, so it has almost no merges for other scripts: it falls back to their bytes, nearly one token "
        "a byte. A tokenizer trained on Chinese text gives most Chinese characters one token each."),
    "chat_empty": "Type a user message (or a system message) to see its tokens.",
    "chat_row_bad": "The messages of request {name} cannot be read: {reason}",
    "chat_add": "Add to the trace as a new request with a prompt of {n} tokens",
    "chat_use": "Use {n} tokens as the prompt of request {name}",
    "chat_use_help": (
        "The count goes into the trace's prompt column: the scheduler admits the request when its prompt fits "
        "the token budget and prefills that many tokens. Edit the new request's arrival and output in the table."),
    "chat_added": "Request {name} added with a prompt of {n} tokens.",
    "chat_used": "Request {name} now has a prompt of {n} tokens.",
    "chat_leaves_out": (
        "Left out: a real tokenizer turns each token into an id of its vocabulary; only the count and the pieces "
        "matter here. The tiny model was not trained on any template: it reads the markers as plain bytes."),
    "rm_source_chats": "messages in words",
    "rm_template": "Chat template",
    "rm_template_help": (
        "Requests given in words are wrapped in this template; the model prefills exactly the templated text's "
        "bytes."),
    "rm_bpe_tokens": "BPE tokens",
    "rm_bpe_tokens_help": "The classroom BPE's count of the same text, for comparison only: the model prefills bytes.",
    "rm_prefilled": "The prompts as the model prefilled them",
    "rm_prefilled_note": (
        "The model is byte-level: it prefills exactly these bytes, one token a byte, template markers included. "
        "The classroom BPE's count is shown for comparison only: this model cannot read BPE tokens."),
    "rm_prefilled_one": "{name} · {bytes} bytes prefilled · {bpe} BPE tokens",

    # -- The real model on many engines (issue 29: ui/model_fleet.py) --
    "router_least-tokens": "least-tokens",
    "router_least-tokens_short": "least-tok.",
    "rmf_title": "Many servers on the model",
    "rmf_intro": (
        "The same trace and Policy 2, served by several engines of this model instead of one. The engines share "
        "the model's weights; each has its own paged KV cache. **Side by side**, a router places each request on "
        "one replica. **Prefill split from decode**, a request prefills on a prefill replica, which makes its "
        "first token; its prompt's KV blocks are then copied to a decode replica, which makes the rest. Every "
        "iteration and every copy is measured."),
    "rmf_layout": "Fleet",
    "rmf_layout_split": "prefill split from decode",
    "rmf_layout_replicas": "replicas side by side",
    "rmf_prefill": "Prefill replicas",
    "rmf_prefill_help": "Engines that prefill each request and make its first token.",
    "rmf_decode": "Decode replicas",
    "rmf_decode_help": "Engines that make the rest of each request's tokens once its KV blocks have landed (the one "
                       "with the fewest requests waiting or running).",
    "rmf_latency": "Transfer latency (ms)",
    "rmf_latency_help": "A fixed time each KV transfer takes on top of its measured copy, as a network link would.",
    "rmf_per_block": "Transfer per block (ms)",
    "rmf_per_block_help": "Time a transfer takes for each KV block it moves, on top of its measured copy.",
    "rmf_replicas": "Replicas",
    "rmf_replicas_help": "Identical engines, each with the budgets above.",
    "rmf_router": "Router",
    "rmf_router_help": "How a request is placed when it arrives. Prefix-affinity needs Policy 2's prefix cache.",
    "rmf_split_first": (
        "A split makes each request's first token on its prefill replica: this run samples it there, whatever "
        "the first-token choice above."),
    "rmf_run": "Run the fleet on the model",
    "rmf_press_run": "Press **Run the fleet on the model** to serve the trace with Policy 2 on these engines.",
    "rmf_running": "Running the fleet on the model…",
    "rmf_ran_split": (
        "Policy 2 ({policy}) on {prefill} prefill and {decode} decode replicas of the model, {device} "
        "({dtype}): times measured in ms."),
    "rmf_ran_replicas": (
        "Policy 2 ({policy}) on {replicas} replicas of the model behind {router}, {device} ({dtype}): times "
        "measured in ms."),
    "rmf_tpot_p50": "TPOT p50",
    "rmf_throughput": "Fleet throughput",
    "rmf_tokens_s": "tokens/s",
    "rmf_copies": "KV copies",
    "rmf_copies_help": "The time spent copying prompt blocks out of the prefill replicas' caches and into the "
                       "decode replicas', all copies added up.",
    "rmf_gantt": "The fleet's {engines} engines, measured: a panel each",
    "rmf_col_replica": "replica",
    "rmf_col_requests": "requests",
    "rmf_col_makespan": "makespan",
    "rmf_col_ttft": "TTFT p50",
    "rmf_ttft_decode": "On a decode replica, TTFT is the time to a request's second token: the first it makes there.",
    "rmf_col_kv_peak": "KV peak (blocks)",
    "rmf_col_copy": "copy",
    "rmf_copy_send": "out of prefill cache",
    "rmf_copy_receive": "into decode cache",
    "rmf_col_blocks": "blocks",
    "rmf_col_at": "at (its replica's clock)",
    "rmf_col_took": "took",
    "rmf_copies_story": (
        "**{n} requests moved.** Each request's prompt blocks were copied out of its prefill replica's cache in "
        "the iteration that made its first token (before a later prefill could reuse them), and into its decode "
        "replica's cache when that replica admitted it. The copies took {total} in all, {share} of the fleet's "
        "busy time; the longest wait on a decode replica was {wait}."),
    "rmf_download": "Download the copies (CSV)",
    "rmf_clocks": (
        "One process runs the engines, one iteration at a time, the engine furthest behind first. Each engine "
        "keeps its own clock, the sum of its iterations' measured times, so the fleet is timed as if each engine "
        "had a device of its own; arrivals in ms are read on those clocks. Copies go through a store in host "
        "memory, as Mooncake's does."),

    # -- Errors in the page's words, the two policies' names, what a preset sets (issue 26) --
    "policy_short_a": "P1",
    "policy_short_b": "P2",
    "cfg_policy_bad": "{policy}: {problem}",
    "cfg_field_policy": "Batching",
    "cfg_field_slo": "SLOs",
    "cfg_field_weights": "Model weights",
    "cfg_c_token": "c_token (ms/token row)",
    "cfg_c_seq": "c_seq (ms/sequence)",
    "cfg_c_key": "c_key (ms/sequence × KV span)",
    "cfg_c_cell": "c_cell (ms/sequence × chunk × KV span)",
    "cfg_err_whole": "must be a whole number of at least {low}, got {value}",
    "cfg_err_at_least": "must be a number of at least {low}, got {value}",
    "cfg_err_above": "must be a number above {low}, got {value}",
    "cfg_err_at_least_at_most": "must be a number from {low} to {high}, got {value}",
    "cfg_err_above_at_most": "must be a number above {low} and at most {high}, got {value}",
    "cfg_err_choice": "must be one of {choices}, got {value}",
    "cfg_err_no_time_linear": "an iteration must take some time: c0, c_prefill or c_decode must be above 0",
    "cfg_err_no_time_profile": "an iteration must take some time: c0, c_token or c_seq must be above 0",
    "cfg_err_no_fp8": "the {hardware} has no fp8 tensor cores: use bf16",
    "cfg_err_not_slo": "must be SLO settings",
    "cfg_err_not_cost_model": "must be a cost model",
    "cfg_err_not_moe": "must be MoE settings",
    "cfg_err_not_bool": "must be on or off",
    "cfg_err_quota_pairs": "must be tenant=share pairs",
    "cfg_err_quota_name": "tenant names are text, got {value}",
    "cfg_err_quota_twice": "names a tenant twice",
    "cfg_err_quota_list": "write tenant=share pairs separated by commas, such as vip=0.5, free=0.5",
    "cfg_err_buckets_whole": "must be whole numbers of at least 1",
    "cfg_err_buckets_order": "must be increasing, each size once",
    "cfg_err_bucket_list": "write batch sizes separated by commas, such as 1, 2, 4, 8",
    "cfg_err_continuous_only": "applies to continuous batching only",
    "cfg_err_release_needs_credits": "applies only with stream credits (a request is paused only then)",
    "cfg_err_lpm_needs_cache": (
        "longest prefix match orders by the prefix found in the prefix cache: turn prefix caching on"),
    "cfg_err_cache_needs_kv": "prefix caching keeps its blocks in the KV cache: give the KV cache a size",
    "cfg_err_split_first_token": (
        "prefill/decode disaggregation samples the first token on the prefill replica: choose the prefill first token"),
    "cfg_err_split_whole_ticks": "in ticks a KV transfer takes whole ticks: give the latency and the time a block in whole ticks",
    "cfg_err_split_replaces_replicas": "prefill and decode engines replace the replicas: leave the replicas at 1, or the prefill and decode engines at 0",
    "cfg_err_sweep_split_replicas": "a split's engines are its prefill and decode replicas: sweep the prefill engines instead",
    "cfg_err_sweep_no_decode": "a split of {engines} engines needs at least one decode engine, so at most {engines} − 1 prefill engines, got {value}",
    "cfg_err_affinity_needs_cache": "prefix-affinity routing reads each replica's prefix cache: turn prefix caching on",
    "cfg_err_spec_over_budget": (
        "verifying {tokens} draft tokens costs {cost} token-work a request, more than the token budget {budget}"),
    "cfg_err_nano_budget": (
        "nano-vllm prefills a preempted request's whole length in one step: the budget must hold the longest "
        "request, {longest} tokens"),
    "cfg_err_preset_sets": "is set by the {preset} preset (to {value})",
    "cfg_err_preset_needs_kv": "the {preset} preset keeps its prefix cache in the KV cache: give the cache a size",
    "cfg_err_moe_too_many": "must be at most {most}, got {value}",
    "cfg_err_moe_top_k": "each token goes to that many distinct experts, so at most {experts}, got {value}",
    "cfg_err_moe_devices": "the {experts} experts are split evenly over the devices: {devices} does not divide them",
    "cfg_err_no_cuda": "CUDA is not available on this machine",
    "cfg_err_weights_missing": "{path} is missing: train it with `python -m gpu_demo train`",
    "cfg_err_weights_unreadable": "{path} cannot be loaded ({reason}); train it again",
    "opt_by_preset": "Set by the {preset} preset: its own rule, not an option of this policy.",
    "opt_allowed_by_preset": (
        "Set by the {preset} preset, which allows one other value: “first chunk only” turns off vLLM's "
        "scheduler_reserve_full_isl, so a request is admitted once its first chunk's blocks are free, not its "
        "whole prompt's."),
    "preset_kv_cache": (
        "Its prefix cache lives in the KV cache: {blocks} blocks of {size} tokens, under “{where}” above. A cache "
        "with no size was given room for a full batch of the longest request when the preset was chosen."),
    "lab_utilization_note": (
        "Budget utilization gets no verdict: it counts the token-work computed, so a policy that computes less "
        "for the same answers (prefix caching skips the cached prompt tokens; fewer preemptions recompute less) "
        "has less of it without serving worse. Makespan, throughput and the latencies say which serves better."),
    # Many servers (ui/fleet.py, pages/many_servers.py)
    "nav_fleet": "Many servers",
    "home_link_planner": "Plan a fleet: how many real GPUs a trace needs within its SLO, and what each costs",
    "home_link_many_servers": "Many servers: which replica gets a request, and splitting prefill from decode",
    "fleet_title": "Many servers: routers and prefill/decode disaggregation",
    "fleet_about": "What this page simulates, and how",
    "fleet_intro": (
        "Real serving is a fleet: several copies of one engine behind a router. Each replica here is the very "
        "scheduler of the other pages, with the same budgets, KV cache and options; only where a request goes "
        "changes. Times are in ms under a linear latency model (c0 + c_prefill × prefill tokens + c_decode × "
        "decoding requests + c_attn × context read)."),
    "fleet_running": "Simulating the fleets…",
    "fleet_download": "Download this table (CSV)",
    "fleet_routing_title": "Which replica? Routing and the prefix cache",
    "fleet_routing_story": (
        "{users} users chat with {replicas} replicas; every turn sends the whole conversation so far again, and "
        "each replica caches prefixes. **Round-robin** deals the turns out in order and **least-requests** to "
        "the least busy replica, so a user's next turn rarely lands where its conversation is cached: "
        "{hit_rr} of the prompt tokens are found cached. **Prefix-affinity** sends each turn to the replica "
        "whose cache holds the longest prefix of it: {hit_affinity} are found, and the median TTFT falls from "
        "{ttft_rr} to {ttft_affinity}.\n\n"
        "Affinity has a price. When one system prompt opens every request, every replica soon caches it "
        "({hot_hit} hit), yet affinity keeps sending requests to the first replica that held it, until it is "
        "more than {cap_abs} requests and {cap_rel} times busier than the idlest (SGLang's load cap): the busiest replica "
        "serves {hot_busiest} times its share, and the p99 TTFT is {hot_p99_affinity} against "
        "{hot_p99_lr} under least-requests."),
    "fleet_routing_chart": "Chats: TTFT by router",
    "fleet_routing_named": "prefix hits {hit_rr} → {hit_affinity}; TTFT p50 {ttft_rr} → {ttft_affinity}",
    "fleet_hot_chart": "One hot system prompt: TTFT by router",
    "fleet_hot_named": "affinity's hot spot: TTFT p99 {hot_p99_lr} (least-requests) → {hot_p99_affinity}",
    "fleet_ttft_p50": "TTFT p50",
    "fleet_ttft_p99": "TTFT p99",
    "fleet_ttft_axis": "TTFT ({unit})",
    "fleet_gantt_routing": "3 users, 3 turns each, on 3 replicas: {router}",
    "router_round-robin": "round-robin",
    "router_round-robin_short": "round-robin",
    "router_least-requests": "least-requests",
    "router_least-requests_short": "least-req.",
    "router_prefix-affinity": "prefix-affinity",
    "router_prefix-affinity_short": "affinity",
    "fleet_col_hit_rate": "chats: prefix hit rate",
    "fleet_col_ttft_p50": "chats: TTFT p50",
    "fleet_col_ttft_p99": "chats: TTFT p99",
    "fleet_col_hot_ttft_p99": "hot prompt: TTFT p99",
    "fleet_col_hot_busiest": "hot prompt: busiest replica's share",
    "fleet_split_title": "Split prefill from decode (DistServe)",
    "fleet_split_story": (
        "Long prompts ({shortest} to {longest} tokens) under a tight SLO: TTFT at most {ttft} and TPOT at most {tpot}. "
        "**Side by side**, {replicas} engines each mix prefills into their decode iterations, and a {longest}-token "
        "prefill stalls every decoder for {stall}: at {at} requests a second the TPOT p90 is {tpot_colocated}. "
        "**Split**, {half} engines only prefill and {half} only decode; a request's KV blocks travel from one "
        "to the other when its first token is out, and the decode replicas never wait for a prompt: TPOT p90 "
        "{tpot_fast}. Keeping {target} of the requests within the SLO, side by side serves up to "
        "{knee_colocated}, split over a fast link ({fast} + {fast_block} a block) up to {knee_fast}.\n\n"
        "The split's price is the transfer and the capacity it sets apart: {half} engines prefill what {replicas} "
        "shared, and at {at} requests a second the TTFT p90 grows from {ttft_colocated} to {ttft_fast}. Over a "
        "slow link ({slow} + "
        "{slow_block} a block of {block} tokens), a {longest}-token prompt's {blocks} blocks take {slow_total} to arrive, all of it "
        "between the first token and the second: {slow_verdict}."),
    "fleet_split_chart": "Goodput against load",
    "fleet_split_named": (
        "knee (≥ {target} within SLO): side by side {knee_colocated}, split {knee_fast}, slow link {knee_slow}"),
    "fleet_rate": "{rate} req/s",
    "fleet_no_knee": "none",
    "fleet_slow_none": "the split keeps the SLO at no rate",
    "fleet_slow_knee": "the split keeps the SLO only up to {knee}",
    "cfg_field_replicas": "replicas",
    "cfg_field_router": "router",
    "cfg_field_router_seed": "router seed",
    "cfg_field_prefill_replicas": "prefill replicas",
    "cfg_field_decode_replicas": "decode replicas",
    "cfg_field_kv_transfer_latency": "KV transfer latency",
    "cfg_field_kv_transfer_per_block": "KV transfer time a block",
    "fleet_rate_axis": "arrival rate (requests/s)",
    "fleet_goodput_axis": "goodput (requests/s within SLO)",
    "fleet_colocated": "4 engines side by side",
    "fleet_colocated_short": "side by side",
    "fleet_split_fast": "2 prefill + 2 decode, fast link",
    "fleet_split_fast_short": "split",
    "fleet_split_slow": "2 prefill + 2 decode, slow link",
    "fleet_split_slow_short": "split, slow",
    "fleet_col_knee": "knee (most req/s within SLO)",
    "fleet_col_tpot_p90": "TPOT p90",
    "fleet_col_ttft_p90": "TTFT p90",
    "fleet_col_attainment": "within SLO",
    "fleet_col_figure_at": "figure (at {rate} req/s)",
    "fleet_gantt_split": "6 requests, 1 prefill and 1 decode replica: the KV transfers between them",
    "fleet_panel_mixed": "replica {index}",
    "fleet_panel_prefill": "replica {index} · prefill",
    "fleet_panel_decode": "replica {index} · decode",
    "fleet_panel_transfers": "KV transfers",
    "legend_transfer": "KV transfer",
    "hover_transfer": "<b>{name}</b> · KV transfer<br>{unit} {start} → {end}<br>{blocks} blocks",
    "fleet_hidden_title": "What this picture leaves out",
    "fleet_hidden": (
        "- A router here sees each replica exactly as it stands; a real one reads engine stats some time old, or "
        "a radix tree of its own.\n- Transfers do not share a link: each takes its own time, however many run "
        "at once.\n- A prefill replica frees a request's blocks when its first token is out; a real one holds "
        "them until the transfer has read them.\n- On the decode replica the first step feeds the first "
        "token and is drawn as a one-token prefill.\n- The latency model is linear, as on What it costs."),
}
