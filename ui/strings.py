"""Every text the app shows, in English and Chinese: key -> {"en": ..., "zh": ...} (str.format fields)."""

STRINGS = {
    # Navigation and sidebar
    "nav_home": {"en": "Home", "zh": "首页"},
    "nav_example": {"en": "Worked example", "zh": "示例推演"},
    "nav_lab": {"en": "Trace lab", "zh": "Trace 实验室"},
    "nav_guide": {"en": "Metrics guide", "zh": "指标指南"},
    "about_title": {"en": "About", "zh": "关于"},
    "about_text": {
        "en": "**The batching classroom** shows how an LLM server schedules requests: static batching against "
              "continuous (iteration-level) batching, on the same trace and the same budgets. The simulator "
              "counts token-work in ticks, as the design document's teaching model does: it proves scheduling "
              "semantics and metric definitions, not GPU speed.",
        "zh": "**批处理课堂**演示 LLM 服务器如何调度请求：在同一条 trace、同一组预算下对比静态批处理与连续"
              "（iteration 级）批处理。模拟器按设计文档的教学模型以 tick 计 token-work：它验证的是调度语义和"
              "指标口径，而不是 GPU 性能。"},

    # Policies, phases, units
    "policy_static": {"en": "Static batching", "zh": "静态批处理"},
    "policy_continuous": {"en": "Continuous batching", "zh": "连续批处理"},
    "phase_queued": {"en": "queued", "zh": "排队"},
    "phase_prefill": {"en": "prefill", "zh": "prefill"},
    "phase_decode": {"en": "decode", "zh": "decode"},
    "phase_padding": {"en": "padding", "zh": "padding"},
    "phase_idle": {"en": "idle budget", "zh": "空闲预算"},
    "unit_tick": {"en": "tick", "zh": "tick"},
    "marker_arrival": {"en": "arrival", "zh": "到达"},
    "marker_completion": {"en": "last token", "zh": "最后一个 token"},
    "marker_token": {"en": "token emitted", "zh": "输出 token"},
    "hover_segment": {"en": "<b>{name}</b> · {phase}<br>{unit} {start} → {end}<br>{tokens} tokens",
                      "zh": "<b>{name}</b> · {phase}<br>{unit} {start} → {end}<br>{tokens} 个 token"},
    "hover_arrival": {"en": "<b>%{y}</b> arrives at %{x}", "zh": "<b>%{y}</b> 在 %{x} 到达"},
    "hover_completion": {"en": "<b>%{y}</b> emits its last token at %{x}",
                         "zh": "<b>%{y}</b> 在 %{x} 输出最后一个 token"},
    "hover_token": {"en": "a token emitted at %{x}", "zh": "在 %{x} 输出一个 token"},
    "hover_work": {"en": "ticks %{{customdata[0]}} → %{{customdata[1]}}<br>{kind}: %{{y}} token-work",
                   "zh": "tick %{{customdata[0]}} → %{{customdata[1]}}<br>{kind}：%{{y}} token-work"},
    "budget_line": {"en": "budget {budget}", "zh": "预算 {budget}"},
    "budget_title": {"en": "Token-work per tick · {policy}", "zh": "每 tick 的 token-work · {policy}"},
    "axis_token_work": {"en": "token-work", "zh": "token-work"},
    "axis_requests": {"en": "requests", "zh": "请求数"},
    "gantt_sampled": {"en": "showing {shown} of {total} requests, evenly sampled",
                      "zh": "均匀抽样显示 {total} 个请求中的 {shown} 个"},
    "load_title": {"en": "Running and waiting requests · {title}", "zh": "运行中与等待中的请求 · {title}"},
    "load_running": {"en": "running (holding a batch slot)", "zh": "运行中（占用 batch 槽位）"},
    "load_waiting": {"en": "waiting (arrived, no token-work yet)", "zh": "等待中（已到达，尚未开始）"},

    # Home
    "home_title": {"en": "The batching classroom", "zh": "批处理课堂"},
    "home_intro": {
        "en": "An LLM server answers many requests at once by putting them in one **batch**: each model "
              "iteration does a little work for every request in it. First the **prefill** reads a request's "
              "prompt, then each **decode** step produces one more output token.\n\n"
              "**Static batching** waits for a batch, pads every prompt to the longest one and keeps the batch "
              "together until its longest answer is done: short requests sit idle in their slots, and new "
              "arrivals wait outside. **Continuous batching** (iteration-level scheduling) decides again at every "
              "iteration: running requests each decode a token, finished ones free their slot at once, and "
              "waiting requests are admitted into the budget that is left.\n\n"
              "Below, the design document's three requests A=(0,4,5), B=(0,2,2), C=(3,3,4) "
              "(arrival, prompt tokens, output tokens) with a budget of 8 token-work a tick:",
        "zh": "LLM 服务器把许多请求放进同一个 **batch** 一起处理：每次模型 iteration 为 batch 中的每个请求做一点"
              "工作。先由 **prefill** 读入请求的 prompt，之后每个 **decode** 步骤再生成一个输出 token。\n\n"
              "**静态批处理**要等一组请求凑齐，把所有 prompt padding 到最长的长度，并且整个 batch 要等最长的回答"
              "完成才结束：短请求完成后仍占着槽位空转，新到的请求只能在外面等。**连续批处理**（iteration 级调度）"
              "在每次 iteration 都重新决策：运行中的请求各 decode 一个 token，完成的请求立刻释放槽位，等待中的"
              "请求在剩余预算内被接纳。\n\n"
              "下面是设计文档中的三个请求 A=(0,4,5)、B=(0,2,2)、C=(3,3,4)（到达时刻、prompt token 数、输出 "
              "token 数），预算为每 tick 8 个 token-work："},
    "home_caption": {"en": "makespan {makespan} ticks · padding waste {waste} · throughput {throughput} tokens/tick",
                     "zh": "makespan {makespan} tick · padding 浪费 {waste} · 吞吐 {throughput} token/tick"},
    "home_after": {
        "en": "Continuous batching admits C at tick 3, in the same tick as A's decode and in B's freed slot, "
              "so C's first token comes 3 ticks sooner and the trace is done at tick 8 instead of 11. The "
              "teaching model counts every prompt or decode token as one unit of work; real prefill and decode "
              "costs differ, so the 37.5% here is about scheduling, not GPU speed.",
        "zh": "连续批处理在 tick 3 就接纳了 C：与 A 的 decode 同一 tick，并复用 B 释放的槽位，于是 C 的首 token "
              "提前 3 个 tick，整条 trace 在 tick 8 而不是 11 完成。教学模型把每个 prompt 或 decode token 都算作"
              "一个单位的工作；真实的 prefill 与 decode 成本不同，所以这里的 37.5% 说明的是调度，而不是 GPU 速度。"},
    "home_pages": {"en": "Pages", "zh": "页面"},
    "home_link_worked_example": {"en": "Worked example: the seed's trace revealed tick by tick, with narration",
                                 "zh": "示例推演：逐 tick 展开设计文档的 trace，并附文字解说"},
    "home_link_trace_lab": {"en": "Trace lab: edit, generate or upload a trace and compare two policies",
                            "zh": "Trace 实验室：编辑、生成或上传 trace，对比两种策略"},
    "home_link_metrics_guide": {"en": "Metrics guide: queue time, TTFT, TPOT, throughput, goodput and more",
                                "zh": "指标指南：排队时间、TTFT、TPOT、吞吐、goodput 等"},

    # Worked example
    "ex_title": {"en": "Worked example", "zh": "示例推演"},
    "ex_intro": {
        "en": "Requests (arrival, prompt tokens, output tokens): A=(0,4,5), B=(0,2,2), C=(3,3,4); a budget of "
              "8 token-work a tick. Move the slider or step through the ticks: each chart shows what has "
              "happened so far, and the narration says what each tick did.",
        "zh": "请求（到达时刻、prompt token 数、输出 token 数）：A=(0,4,5)、B=(0,2,2)、C=(3,3,4)；每 tick 预算 8 个 "
              "token-work。拖动滑块或逐 tick 前进：图中显示到当前为止发生的事，解说逐 tick 说明发生了什么。"},
    "ex_slider": {"en": "Show the schedule up to tick", "zh": "显示调度直到 tick"},
    "ex_slider_help": {"en": "Everything before this tick is drawn; the narration lists each tick so far.",
                       "zh": "绘制此 tick 之前的全部内容；解说列出到目前为止的每个 tick。"},
    "ex_back": {"en": "One tick back", "zh": "后退一个 tick"},
    "ex_forward": {"en": "One tick forward", "zh": "前进一个 tick"},
    "ex_show_all": {"en": "Show all", "zh": "全部显示"},
    "ex_overall": {"en": "Overall", "zh": "整体指标"},
    "ex_per_request": {"en": "Per request", "zh": "逐请求指标"},
    "ex_takeaway": {
        "en": "Static: makespan 11, padding waste 5 (2 prompt padding + 3 idle decode slots of B), throughput "
              "1.0, C's TTFT 5. Continuous: makespan 8, waste 0, throughput 1.375, C's TTFT 2. Every TPOT is 1.",
        "zh": "静态：makespan 11，padding 浪费 5（2 个 prompt padding + B 的 3 个空闲 decode 槽位），吞吐 1.0，"
              "C 的 TTFT 为 5。连续：makespan 8，浪费 0，吞吐 1.375，C 的 TTFT 为 2。所有请求的 TPOT 都是 1。"},
    "ex_open_lab": {"en": "Open this trace in the trace lab", "zh": "在 Trace 实验室中打开此 trace"},
    "ex_narration": {"en": "What happened, tick by tick (up to tick {tick})",
                     "zh": "逐 tick 解说（直到 tick {tick}）"},
    "ex_narration_empty": {"en": "Move the slider to start.", "zh": "拖动滑块开始。"},

    # Narration of one tick
    "n_tick": {"en": "t={tick}: ", "zh": "t={tick}："},
    "n_sep": {"en": "; ", "zh": "；"},
    "n_decode_one": {"en": "{names} decodes 1 token", "zh": "{names} decode 1 个 token"},
    "n_decode_many": {"en": "{names} decode 1 token each", "zh": "{names} 各 decode 1 个 token"},
    "n_finish_one": {"en": "{names} emits its last token (done at {tick})",
                     "zh": "{names} 输出最后一个 token（在 {tick} 完成）"},
    "n_finish_many": {"en": "{names} emit their last tokens (done at {tick})",
                      "zh": "{names} 输出最后一个 token（在 {tick} 完成）"},
    "n_admit_one": {"en": "{names} is admitted and prefills {tokens} tokens",
                    "zh": "{names} 被接纳并 prefill {tokens} 个 token"},
    "n_admit_many": {"en": "{names} are admitted and prefill {tokens} tokens",
                     "zh": "{names} 被接纳并共 prefill {tokens} 个 token"},
    "n_prefilling_one": {"en": "{names} continues the padded batch prefill", "zh": "{names} 继续 batch 的 padded prefill"},
    "n_prefilling_many": {"en": "{names} continue the padded batch prefill", "zh": "{names} 继续 batch 的 padded prefill"},
    "n_padding_one": {"en": "{names} is done but holds its slot as padding",
                      "zh": "{names} 已完成，但仍以 padding 占着槽位"},
    "n_padding_many": {"en": "{names} are done but hold their slots as padding",
                       "zh": "{names} 已完成，但仍以 padding 占着槽位"},
    "n_arrive_one": {"en": "{names} arrives and waits", "zh": "{names} 到达并等待"},
    "n_arrive_many": {"en": "{names} arrive and wait", "zh": "{names} 到达并等待"},
    "n_wait_one": {"en": "{names} waits", "zh": "{names} 等待"},
    "n_wait_many": {"en": "{names} wait", "zh": "{names} 等待"},
    "n_nothing": {"en": "nothing to run", "zh": "没有可运行的请求"},
    "n_budget": {"en": "{idle} of {budget} budget idle", "zh": "{budget} 个预算中 {idle} 个空闲"},
    "n_budget_padding": {"en": " ({padding} spent on padding)", "zh": "（{padding} 个花在 padding 上）"},

    # Tables
    "col_name": {"en": "request", "zh": "请求"},
    "col_arrival": {"en": "arrival", "zh": "到达"},
    "col_prompt": {"en": "prompt", "zh": "prompt"},
    "col_output": {"en": "output", "zh": "输出"},
    "col_priority": {"en": "priority", "zh": "优先级"},
    "col_deadline": {"en": "deadline", "zh": "截止时间"},
    "col_tenant": {"en": "tenant", "zh": "租户"},
    "col_cancel_at": {"en": "cancel at", "zh": "取消时刻"},
    "col_text": {"en": "text", "zh": "文本"},
    "col_metric": {"en": "metric", "zh": "指标"},
    "col_change": {"en": "change B − A", "zh": "变化 B − A"},
    "col_relative": {"en": "relative", "zh": "相对变化"},
    "col_verdict": {"en": "better?", "zh": "更好？"},
    "col_row": {"en": "row", "zh": "行"},
    "col_column": {"en": "column", "zh": "列"},
    "col_problem": {"en": "problem", "zh": "问题"},
    "m_queue_time": {"en": "queue time", "zh": "排队时间"},
    "m_ttft": {"en": "TTFT", "zh": "TTFT"},
    "m_tpot": {"en": "TPOT", "zh": "TPOT"},
    "m_e2e": {"en": "E2E latency", "zh": "端到端延迟"},
    "m_completion": {"en": "completion", "zh": "完成时刻"},
    "m_makespan": {"en": "makespan", "zh": "makespan"},
    "m_throughput": {"en": "throughput (tokens/tick)", "zh": "吞吐（token/tick）"},
    "m_request_throughput": {"en": "requests/tick", "zh": "请求/tick"},
    "m_padding_waste": {"en": "padding waste", "zh": "padding 浪费"},
    "m_utilization": {"en": "budget utilization", "zh": "预算利用率"},
    "m_goodput": {"en": "goodput", "zh": "goodput"},
    "m_goodput_requests": {"en": "goodput (requests meeting the SLOs)", "zh": "goodput（满足 SLO 的请求数）"},
    "m_slo_attainment": {"en": "SLO attainment", "zh": "SLO 达成率"},
    **{f"m_{metric}_p{q}": {"en": f"{label} p{q}", "zh": f"{label_zh} p{q}"}
       for metric, label, label_zh in (("ttft", "TTFT", "TTFT"), ("tpot", "TPOT", "TPOT"),
                                       ("e2e", "E2E latency", "端到端延迟"), ("queue_time", "queue time", "排队时间"))
       for q in (50, 90, 99)},

    # What changed
    "wc_faster": {"en": "finishes the trace sooner", "zh": "更早完成整条 trace"},
    "wc_slower": {"en": "finishes the trace later", "zh": "更晚完成整条 trace"},
    "wc_makespan": {"en": "**{b}** {verb} than **{a}**: makespan {mb} vs {ma} ({pct}).",
                    "zh": "**{b}** 比 **{a}** {verb}：makespan {mb} 对 {ma}（{pct}）。"},
    "wc_ttft": {"en": "Median TTFT moves from {ta:g} to {tb:g} ticks with **{b}**.",
                "zh": "使用 **{b}** 后，TTFT 中位数从 {ta:g} 变为 {tb:g} tick。"},
    "wc_waste": {"en": "Padding waste: {wa} with **{a}**, {wb} with **{b}**.",
                 "zh": "padding 浪费：**{a}** 为 {wa}，**{b}** 为 {wb}。"},
    "wc_goodput": {"en": "Requests meeting every SLO: {ga} of {n} with **{a}**, {gb} of {n} with **{b}**.",
                   "zh": "满足全部 SLO 的请求：**{a}** 为 {ga}/{n}，**{b}** 为 {gb}/{n}。"},
    "wc_requests": {"en": "{n} of {total} requests finish sooner after arrival with **{b}**.",
                    "zh": "使用 **{b}** 后，{total} 个请求中有 {n} 个的端到端延迟更短。"},
    "wc_same": {"en": "Both policies give the same schedule figures on this trace.",
                "zh": "在这条 trace 上两种策略的指标相同。"},

    # Trace lab
    "lab_title": {"en": "Trace lab", "zh": "Trace 实验室"},
    "lab_intro": {
        "en": "Pick a preset, generate a trace or upload a real one, edit it in the table, set the budgets, and "
              "compare two policies on exactly the same trace. The link at the bottom takes this scenario "
              "with you.",
        "zh": "选择预设、生成 trace 或上传真实 trace，在表格中编辑，设置预算，然后在完全相同的 trace 上对比两种"
              "策略。页面底部的链接可以带走当前场景。"},
    "lab_trace": {"en": "1 · Trace", "zh": "1 · Trace"},
    "tab_presets": {"en": "Presets", "zh": "预设"},
    "tab_generator": {"en": "Generator", "zh": "生成器"},
    "tab_upload": {"en": "Upload", "zh": "上传"},
    "preset_pick": {"en": "Preset", "zh": "预设"},
    "preset_load": {"en": "Load preset", "zh": "载入预设"},
    "preset_seed": {"en": "The design document's example (A, B, C)", "zh": "设计文档示例（A、B、C）"},
    "preset_seed_note": {"en": "Three requests, budget 8: static makespan 11 vs continuous 8.",
                         "zh": "三个请求，预算 8：静态 makespan 11，连续 8。"},
    "preset_bursty": {"en": "Bursty arrivals", "zh": "突发到达"},
    "preset_bursty_note": {
        "en": "40 requests arriving in clumps (gamma arrivals, burstiness 0.2): watch the queue build in a burst "
              "and how fast each policy drains it.",
        "zh": "40 个请求成簇到达（gamma 到达过程，burstiness 0.2）：观察突发时队列如何堆积，以及两种策略各自多快"
              "把它消化掉。"},
    "preset_long_short": {"en": "Long prompts among short ones", "zh": "长 prompt 混在短 prompt 中"},
    "preset_long_short_note": {
        "en": "Short chat turns plus four long documents (prompts 12-16, budget 16). Continuous batching skips "
              "ahead to short prompts that fit the leftover budget, so a long prompt can wait until the batch "
              "is nearly empty: look at the L rows' queue time.",
        "zh": "短对话请求加上四个长文档（prompt 12-16，预算 16）。连续批处理会跳过放不下的请求、先接纳能放进剩余预算"
              "的短 prompt，因此长 prompt 可能要等到 batch 几乎空了才能进入：看看 L 开头各行的排队时间。"},
    "preset_azure_like": {"en": "Azure-like lengths", "zh": "类 Azure 长度分布"},
    "preset_azure_like_note": {
        "en": "120 requests with long-tailed prompt and output lengths shaped like the Azure 2023 conversation "
              "trace, scaled down (budget 64, at most 16 running).",
        "zh": "120 个请求，prompt 与输出长度呈长尾分布，形状仿照 Azure 2023 对话 trace 并按比例缩小（预算 64，"
              "最多 16 个并发）。"},
    "gen_n": {"en": "Requests", "zh": "请求数"},
    "gen_n_help": {"en": "How many requests to generate.", "zh": "要生成的请求个数。"},
    "gen_rate": {"en": "Arrival rate (requests per tick)", "zh": "到达率（每 tick 请求数）"},
    "gen_rate_help": {"en": "The mean number of arrivals a tick.", "zh": "每 tick 平均到达的请求数。"},
    "gen_burstiness": {"en": "Burstiness", "zh": "突发度（burstiness）"},
    "gen_burstiness_help": {
        "en": "Shape of the gamma gaps between arrivals: 1 is Poisson, below 1 comes in bursts, above 1 is "
              "more regular (as in vLLM's benchmark).",
        "zh": "到达间隔 gamma 分布的形状参数：1 为 Poisson，小于 1 更突发，大于 1 更均匀（与 vLLM benchmark 相同）。"},
    "gen_prompt": {"en": "Prompt length", "zh": "prompt 长度"},
    "gen_output": {"en": "Output length", "zh": "输出长度"},
    "dist_uniform": {"en": "uniform", "zh": "均匀分布"},
    "dist_fixed": {"en": "fixed", "zh": "固定值"},
    "dist_lognormal": {"en": "lognormal (long tail)", "zh": "对数正态（长尾）"},
    "dist_value": {"en": "tokens", "zh": "token 数"},
    "dist_low": {"en": "from", "zh": "最小"},
    "dist_high": {"en": "to", "zh": "最大"},
    "dist_median": {"en": "median", "zh": "中位数"},
    "dist_sigma": {"en": "sigma (spread)", "zh": "sigma（离散度）"},
    "gen_seed": {"en": "Seed", "zh": "随机种子"},
    "gen_seed_help": {"en": "The same seed and parameters always give the same trace.",
                      "zh": "相同的种子和参数总是生成相同的 trace。"},
    "gen_make": {"en": "Generate", "zh": "生成"},
    "gen_bad": {"en": "Cannot generate: {reason}", "zh": "无法生成：{reason}"},
    "up_file": {"en": "Trace file", "zh": "trace 文件"},
    "up_help": {"en": "Native CSV/JSON, Azure LLM inference CSV, Mooncake JSONL or BurstGPT CSV, up to {mb} MB.",
                "zh": "原生 CSV/JSON、Azure LLM inference CSV、Mooncake JSONL 或 BurstGPT CSV，最大 {mb} MB。"},
    "up_format": {"en": "Format", "zh": "格式"},
    "fmt_auto": {"en": "detect from the header", "zh": "根据表头自动识别"},
    "fmt_native": {"en": "native (name, arrival, prompt, output)", "zh": "原生（name、arrival、prompt、output）"},
    "fmt_azure": {"en": "Azure LLM inference", "zh": "Azure LLM inference"},
    "fmt_mooncake": {"en": "Mooncake JSONL", "zh": "Mooncake JSONL"},
    "fmt_burstgpt": {"en": "BurstGPT", "zh": "BurstGPT"},
    "up_ms_per_tick": {"en": "Milliseconds per tick", "zh": "每 tick 毫秒数"},
    "up_token_scale": {"en": "Token scale", "zh": "token 缩放系数"},
    "up_limit": {"en": "At most this many requests", "zh": "最多读取请求数"},
    "up_start_s": {"en": "Window start (seconds)", "zh": "时间窗起点（秒）"},
    "up_end_s": {"en": "Window end (seconds, 0 = to the end)", "zh": "时间窗终点（秒，0 表示到末尾）"},
    "up_end_help": {"en": "Seconds after the trace's first request.", "zh": "相对 trace 第一个请求的秒数。"},
    "up_import": {"en": "Import", "zh": "导入"},
    "up_too_big": {"en": "The file is larger than {mb} MB. Cut it down, or run it with python -m sim run.",
                   "zh": "文件超过 {mb} MB。请先裁剪，或用 python -m sim run 在命令行运行。"},
    "up_bad": {"en": "The file could not be imported:", "zh": "文件无法导入："},
    "up_report": {"en": "Import report: {report}", "zh": "导入报告：{report}"},
    "help_name": {"en": "A unique name for the request.", "zh": "请求的唯一名称。"},
    "help_arrival": {"en": "Tick at which the request arrives (0 or more).", "zh": "请求到达的 tick（不小于 0）。"},
    "help_prompt": {"en": "Prompt tokens to prefill (1 or more).", "zh": "需要 prefill 的 prompt token 数（至少 1）。"},
    "help_output": {"en": "Output tokens to decode (1 or more).", "zh": "需要 decode 的输出 token 数（至少 1）。"},
    "lab_bad_rows": {"en": "{n} row(s) need fixing before the trace can run:", "zh": "有 {n} 行需要修正后才能运行："},
    "lab_sorted": {"en": "The rows were not in arrival order; the simulation uses them sorted by arrival.",
                   "zh": "这些行没有按到达时间排序；模拟会按到达时间排序后使用。"},
    "lab_too_many": {"en": "{n:,} requests is more than the lab's limit of {limit:,} for an interactive run; use "
                           "python -m sim run for the whole trace.",
                     "zh": "{n:,} 个请求超过了交互运行的上限 {limit:,}；完整 trace 请用 python -m sim run 运行。"},
    "lab_count": {"en": "{n} requests", "zh": "{n} 个请求"},
    "dl_trace_csv": {"en": "Download trace (CSV)", "zh": "下载 trace（CSV）"},
    "dl_trace_json": {"en": "Download trace (JSON)", "zh": "下载 trace（JSON）"},
    "dl_typed_csv": {"en": "Download what is typed (CSV)", "zh": "下载当前输入内容（CSV）"},
    "lab_budgets": {"en": "2 · Budgets and policies", "zh": "2 · 预算与策略"},
    "cfg_budget": {"en": "Token budget per tick", "zh": "每 tick token 预算"},
    "cfg_budget_help": {"en": "Token-work one tick may do: prefill tokens + decode tokens + padding slots.",
                        "zh": "一个 tick 可完成的 token-work：prefill token + decode token + padding 槽位。"},
    "cfg_max_seqs": {"en": "Max running sequences (0 = no limit)", "zh": "最大并发序列数（0 表示不限）"},
    "cfg_max_seqs_help": {"en": "The most requests in one iteration's batch.", "zh": "一次 iteration 的 batch 中最多的请求数。"},
    "cfg_first_token": {"en": "First output token", "zh": "首个输出 token"},
    "cfg_first_token_help": {
        "en": "Teaching mode: a prefill tick emits nothing, the first token comes from the first decode tick. "
              "Engine mode: the prefill iteration samples the first token, as vLLM does.",
        "zh": "教学模式：prefill tick 不输出 token，首 token 来自第一个 decode tick。引擎模式：prefill iteration "
              "直接采样出首 token（与 vLLM 相同）。"},
    "first_decode": {"en": "from the first decode (teaching)", "zh": "来自首次 decode（教学）"},
    "first_prefill": {"en": "from the prefill (engine, vLLM)", "zh": "来自 prefill（引擎，vLLM）"},
    "cfg_slo_ttft": {"en": "SLO: TTFT at most (ticks, 0 = none)", "zh": "SLO：TTFT 上限（tick，0 表示不设）"},
    "cfg_slo_tpot": {"en": "SLO: TPOT at most (ticks, 0 = none)", "zh": "SLO：TPOT 上限（tick，0 表示不设）"},
    "cfg_slo_e2e": {"en": "SLO: E2E at most (ticks, 0 = none)", "zh": "SLO：端到端延迟上限（tick，0 表示不设）"},
    "cfg_slo_help": {"en": "Goodput counts the requests that meet every SLO you set.",
                     "zh": "goodput 统计满足你设置的全部 SLO 的请求。"},
    "cfg_policy_a": {"en": "Policy A", "zh": "策略 A"},
    "cfg_policy_b": {"en": "Policy B", "zh": "策略 B"},
    "cfg_bad": {"en": "Budget field {field}: {reason}", "zh": "预算字段 {field}：{reason}"},
    "lab_over_budget": {"en": "These prompts are larger than the token budget, so they could never be admitted "
                              "(without chunked prefill). Raise the budget or shorten them:",
                        "zh": "以下 prompt 大于 token 预算，永远无法被接纳（没有 chunked prefill 时）。请提高预算或缩短它们："},
    "lab_results": {"en": "3 · Results", "zh": "3 · 结果"},
    "lab_run": {"en": "Run ▶", "zh": "运行 ▶"},
    "lab_running": {"en": "Simulating both policies…", "zh": "正在模拟两种策略…"},
    "lab_stale": {"en": "The trace or budgets changed since this run: press Run to update.",
                  "zh": "自上次运行后 trace 或预算已改变：按“运行”更新结果。"},
    "lab_press_run": {"en": "Press Run to simulate this trace.", "zh": "按“运行”开始模拟这条 trace。"},
    "lab_fix_first": {"en": "Fix the problems above to run.", "zh": "请先修正上面的问题。"},
    "card_help": {"en": "B's value; the arrow shows the change from A ({a}). Green is better.",
                  "zh": "B 的数值；箭头表示相对 A（{a}）的变化，绿色表示更好。"},
    "lab_overall": {"en": "Overall, A against B", "zh": "整体指标：A 对比 B"},
    "lab_per_request": {"en": "Per request", "zh": "逐请求指标"},
    "dl_requests_csv": {"en": "Per-request metrics (CSV)", "zh": "逐请求指标（CSV）"},
    "dl_overall_csv": {"en": "Overall metrics (CSV)", "zh": "整体指标（CSV）"},
    "dl_schedule_json": {"en": "Schedules (JSON)", "zh": "调度结果（JSON）"},
    "dl_chrome": {"en": "Chrome / Perfetto trace", "zh": "Chrome / Perfetto trace"},
    "dl_chrome_help": {"en": "Open it at ui.perfetto.dev: one track per request, a tick shown as 1 ms.",
                       "zh": "在 ui.perfetto.dev 打开：每个请求一条轨道，1 tick 显示为 1 ms。"},
    "link_title": {"en": "Share this scenario (link)", "zh": "分享此场景（链接）"},
    "link_too_large": {"en": "This trace is too large for a link: share the downloaded trace instead.",
                      "zh": "这条 trace 太大，无法放进链接：请改为分享下载的 trace 文件。"},
    "link_loaded": {"en": "Scenario loaded from the link.", "zh": "已从链接载入场景。"},
    "link_bad": {"en": "This link could not be opened ({reason}). The lab shows the default scenario.",
                 "zh": "无法打开此链接（{reason}）。实验室显示默认场景。"},
    "link_dismiss": {"en": "Dismiss", "zh": "知道了"},
    "link_err_too_long": {"en": "it is too long", "zh": "链接过长"},
    "link_err_not_a_link": {"en": "it is not a scenario link, or it was cut or changed",
                        "zh": "这不是场景链接，或链接被截断、修改"},
    "link_err_bad_version": {"en": "it was made by another version of the app", "zh": "链接来自其他版本的应用"},
    "link_err_bad_trace": {"en": "its trace is invalid", "zh": "其中的 trace 无效"},
    "link_err_bad_config": {"en": "its budgets are invalid", "zh": "其中的预算无效"},
    "link_err_bad_policy": {"en": "it names an unknown policy", "zh": "其中包含未知策略"},

    # Input problems (the codes of sim.trace.MESSAGES)
    "prob_empty": {"en": "is empty", "zh": "为空"},
    "prob_not_integer": {"en": "must be a whole number, got {value}", "zh": "必须是整数，实际为 {value}"},
    "prob_below_min": {"en": "must be at least {min}, got {value}", "zh": "不能小于 {min}，实际为 {value}"},
    "prob_above_max": {"en": "must be at most {max}, got {value}", "zh": "不能大于 {max}，实际为 {value}"},
    "prob_too_long": {"en": "is longer than {max} characters", "zh": "超过 {max} 个字符"},
    "prob_duplicate": {"en": "repeats the name of row {other}", "zh": "与第 {other} 行重名"},
    "prob_missing_column": {"en": "the column is missing", "zh": "缺少该列"},
    "prob_before_arrival": {"en": "must not be before the arrival tick {arrival}", "zh": "不能早于到达 tick {arrival}"},
    "prob_no_rows": {"en": "the trace has no requests", "zh": "trace 中没有请求"},
    "prob_unreadable": {"en": "cannot be read: {detail}", "zh": "无法读取：{detail}"},
    "prob_over_budget": {"en": "prompt of {prompt} tokens is larger than the token budget {budget}",
                         "zh": "prompt 有 {prompt} 个 token，大于 token 预算 {budget}"},

    # Metrics guide
    "guide_title": {"en": "Metrics guide", "zh": "指标指南"},
    "guide_intro": {
        "en": "What each metric measures, how it is computed here and what it includes, drawn on one request of "
              "the worked example. Pick a policy and a request.",
        "zh": "每个指标衡量什么、在这里如何计算、包含哪些部分，并在示例推演中的一个请求上画出来。请选择策略和请求。"},
    "guide_policy": {"en": "Policy", "zh": "策略"},
    "guide_request": {"en": "Request", "zh": "请求"},
    "guide_here": {"en": "here ({name})", "zh": "本例（{name}）"},
    "anatomy_title": {"en": "Request {name}: queue, TTFT and the gaps between its tokens",
                      "zh": "请求 {name}：排队、TTFT 与 token 间隔"},
    "anatomy_ttft": {"en": "TTFT = {value}", "zh": "TTFT = {value}"},
    "anatomy_queue": {"en": "queue = {value}", "zh": "排队 = {value}"},
    "anatomy_tpot": {"en": "{n} gaps, mean TPOT = {value}", "zh": "{n} 个间隔，平均 TPOT = {value}"},
    "guide_queue_time_def": {
        "en": "How long a request waits for the scheduler or for capacity before it gets any token-work.",
        "zh": "请求在获得任何 token-work 之前等待调度器或容量的时间。"},
    "guide_queue_time_formula": {"en": r"\text{queue} = t_{\text{first work}} - t_{\text{arrival}}",
                                 "zh": r"\text{排队时间} = t_{\text{首次工作}} - t_{\text{到达}}"},
    "guide_queue_time_includes": {
        "en": "Includes waiting for a free slot, for budget left in a tick, or (static) for the current batch to "
              "finish. Not the prefill itself.",
        "zh": "包括等待空闲槽位、等待 tick 内剩余预算，或（静态批处理中）等待当前 batch 结束；不包括 prefill 本身。"},
    "guide_ttft_def": {"en": "Time to first token: from arrival until the first output token is emitted.",
                       "zh": "首 token 时间：从到达到输出第一个 token。"},
    "guide_ttft_formula": {"en": r"\text{TTFT} = t_{\text{first token}} - t_{\text{arrival}}",
                           "zh": r"\text{TTFT} = t_{\text{首 token}} - t_{\text{到达}}"},
    "guide_ttft_includes": {
        "en": "Includes queue time and prefill; in the teaching mode also the first decode tick. A real server "
              "adds tokenization, the chat template, sampling and streaming.",
        "zh": "包括排队与 prefill；教学模式下还包括第一个 decode tick。真实服务器还要加上 tokenization、chat "
              "template、采样和 streaming。"},
    "guide_tpot_def": {
        "en": "Time per output token (inter-token latency): the mean gap between consecutive output tokens after "
              "the first; 0 for a one-token answer.",
        "zh": "每输出 token 时间（token 间延迟）：首 token 之后相邻输出 token 的平均间隔；只有一个 token 时为 0。"},
    "guide_tpot_formula": {"en": r"\text{TPOT} = \frac{t_{\text{last}} - t_{\text{first}}}{n_{\text{out}} - 1}",
                           "zh": r"\text{TPOT} = \frac{t_{\text{末 token}} - t_{\text{首 token}}}{n_{\text{输出}} - 1}"},
    "guide_tpot_includes": {
        "en": "Reported per request (its mean) or as the distribution of all gaps; stalls between decodes "
              "(preemption, a long prefill in the way) raise it.",
        "zh": "可按请求报告（取均值），也可报告所有间隔的分布；decode 之间的停顿（抢占、被长 prefill 挡住）会使其变大。"},
    "guide_throughput_def": {"en": "Output tokens completed per unit of time over the whole run.",
                             "zh": "整个运行期间单位时间完成的输出 token 数。"},
    "guide_throughput_formula": {"en": r"\text{throughput} = \frac{\sum_r n_{\text{out}}(r)}{\text{makespan}}",
                                 "zh": r"\text{吞吐} = \frac{\sum_r n_{\text{输出}}(r)}{\text{makespan}}"},
    "guide_throughput_includes": {"en": "Says nothing about whether each request met its latency target.",
                                  "zh": "不能说明每个请求是否满足了延迟目标。"},
    "guide_goodput_def": {
        "en": "The requests (or their tokens) that meet every given SLO: TTFT, TPOT and end-to-end limits. Set "
              "SLOs in the lab to see it move.",
        "zh": "满足全部给定 SLO（TTFT、TPOT、端到端上限）的请求（或其 token）。在实验室中设置 SLO 即可观察它的变化。"},
    "guide_goodput_formula": {
        "en": r"\text{goodput} = \#\{r : \text{TTFT}_r \le T_1,\ \text{TPOT}_r \le T_2,\ \text{E2E}_r \le T_3\}",
        "zh": r"\text{goodput} = \#\{r : \text{TTFT}_r \le T_1,\ \text{TPOT}_r \le T_2,\ \text{E2E}_r \le T_3\}"},
    "guide_goodput_includes": {"en": "With no SLO set every request counts. Per unit of time it is divided by the "
                                     "makespan.",
                               "zh": "未设置 SLO 时所有请求都计入；按单位时间计时再除以 makespan。"},
    "guide_makespan_def": {"en": "Time from tick 0 until the last token of the trace is emitted.",
                           "zh": "从 tick 0 到整条 trace 最后一个 token 输出的时间。"},
    "guide_makespan_formula": {"en": r"\text{makespan} = \max_r t_{\text{last token}}(r)",
                               "zh": r"\text{makespan} = \max_r t_{\text{末 token}}(r)"},
    "guide_makespan_includes": {"en": "Suited to offline (batch) comparisons on a fixed trace.",
                                "zh": "适合在固定 trace 上做离线调度对比。"},
    "guide_padding_waste_def": {
        "en": "Token-work spent on nothing: prompt positions padded to the batch's longest prompt, plus the "
              "decode slots of batch members that are already done.",
        "zh": "花在无用功上的 token-work：把 prompt padding 到 batch 最长 prompt 的位置，加上已完成成员占着的 decode 槽位。"},
    "guide_padding_waste_formula": {
        "en": r"\text{waste} = \sum_{\text{batches}} (n \cdot p_{\max} - \textstyle\sum p) + \text{idle decode slots}",
        "zh": r"\text{浪费} = \sum_{\text{batch}} (n \cdot p_{\max} - \textstyle\sum p) + \text{空闲 decode 槽位}"},
    "guide_padding_waste_includes": {"en": "Continuous batching has none: no padding, and a finished request "
                                           "leaves its slot.",
                                     "zh": "连续批处理没有这项浪费：不做 padding，完成的请求会让出槽位。"},
    "guide_utilization_def": {"en": "The share of the token budget spent on useful prefill and decode work.",
                              "zh": "token 预算中用于有效 prefill 和 decode 工作的比例。"},
    "guide_utilization_formula": {
        "en": r"\text{utilization} = \frac{\text{prefill} + \text{decode tokens}}{\text{budget} \times \text{makespan}}",
        "zh": r"\text{利用率} = \frac{\text{prefill} + \text{decode token}}{\text{预算} \times \text{makespan}}"},
    "guide_utilization_includes": {"en": "Padding is not useful work; idle ticks count as unused budget.",
                                   "zh": "padding 不算有效工作；空闲 tick 计为未使用的预算。"},
    "guide_fair_title": {"en": "A fair A/B comparison", "zh": "公平的 A/B 对比"},
    "guide_fair": {
        "en": "Compare policies only on **the same workload and the same arrival trace**, with **the same model, "
              "hardware and output semantics** (the same first-token rule, the same stopping). When you report "
              "a throughput experiment, also state:\n\n"
              "- the **warm-up** runs left out;\n- the **request length distribution** (prompt and output);\n"
              "- the **concurrency limit** (max running sequences);\n- the **scheduler budgets** (token budget, "
              "KV capacity);\n- the **sampling** settings;\n- whether **streaming** is counted in the latencies.\n\n"
              "The lab keeps the first three the same for A and B by construction: one trace, one budget form.",
        "zh": "只有在**同一负载、同一 arrival trace**，并且**同一模型、同一硬件、同一输出语义**（相同的首 token "
              "规则、相同的停止条件）下，策略对比才公平。报告吞吐实验时还要说明：\n\n"
              "- 排除了哪些 **warm-up** 运行；\n- **请求长度分布**（prompt 与输出）；\n- **并发上限**（最大运行序列数）；\n"
              "- **调度预算**（token 预算、KV 容量）；\n- **采样**设置；\n- 延迟中是否计入 **streaming**。\n\n"
              "实验室天然保证 A 和 B 使用同一条 trace、同一组预算。"},
}
