"""Every text the app shows, in English and Chinese: key -> {"en": ..., "zh": ...} (str.format fields)."""

STRINGS = {
    # Navigation and sidebar
    "nav_home": {"en": "Home", "zh": "首页"},
    "nav_example": {"en": "Worked example", "zh": "示例推演"},
    "nav_lab": {"en": "Trace lab", "zh": "Trace 实验室"},
    "nav_guide": {"en": "Metrics guide", "zh": "指标指南"},
    "presenter_switch": {"en": "Presenter mode", "zh": "演示模式"},
    "presenter_help": {"en": "For a projector: larger fonts in text, tables and charts, and each page's options "
                             "folded away (open them when you need them).",
                       "zh": "用于投影：正文、表格和图表字体更大，各页的选项折叠起来（需要时再展开）。"},
    "presenter_options": {"en": "Options", "zh": "选项"},
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
              "costs differ, so the 37.5% more tokens a tick here (1.375 against 1.0) is about scheduling, not GPU "
              "speed.",
        "zh": "连续批处理在 tick 3 就接纳了 C：与 A 的 decode 同一 tick，并复用 B 释放的槽位，于是 C 的首 token "
              "提前 3 个 tick，整条 trace 在 tick 8 而不是 11 完成。教学模型把每个 prompt 或 decode token 都算作"
              "一个单位的工作；真实的 prefill 与 decode 成本不同，所以这里每 tick 多出的 37.5% token（1.375 对 1.0）说明的是调度，而不是 GPU 速度。"},
    "home_pages": {"en": "Pages", "zh": "页面"},
    "home_link_worked_example": {"en": "Worked example: the seed's trace revealed tick by tick, with narration",
                                 "zh": "示例推演：逐 tick 展开设计文档的 trace，并附文字解说"},
    "home_link_costs": {"en": "What it costs: prefill–decode interference, TPOT jitter, starvation, KV pressure "
                                 "and the scheduler's work, in milliseconds",
                        "zh": "代价：prefill–decode 干扰、TPOT 抖动、饥饿、KV 压力与调度器的工作，以毫秒计"},
    "home_link_trace_lab": {"en": "Trace lab: edit, generate or upload a trace and compare two policies",
                            "zh": "Trace 实验室：编辑、生成或上传 trace，对比两种策略"},
    "home_link_capacity_lab": {"en": "Capacity lab: how much load before each policy breaks its SLOs (goodput and knees)",
                               "zh": "容量实验：负载多大时各策略开始违反 SLO（goodput 与拐点）"},
    "home_link_metrics_guide": {"en": "Metrics guide: queue time, TTFT, TPOT, throughput, goodput and more",
                                "zh": "指标指南：排队时间、TTFT、TPOT、吞吐、goodput 等"},

    # Worked example
    "ex_title": {"en": "Worked example", "zh": "示例推演"},
    "ex_intro": {
        "en": "Requests (arrival, prompt tokens, output tokens): A=(0,4,5), B=(0,2,2), C=(3,3,4); a budget of "
              "8 token-work a tick. Press Play, or step through the ticks: each chart and table shows what has "
              "happened by the time on the clock, and beside the charts each tick's sentence says what it did "
              "and the rule behind it.",
        "zh": "请求（到达时刻、prompt token 数、输出 token 数）：A=(0,4,5)、B=(0,2,2)、C=(3,3,4)；每 tick 预算 8 个 "
              "token-work。点击播放或逐 tick 前进：图和表显示到当前时刻为止发生的事，图旁的解说逐 tick 说明发生了什么、依据哪条规则。"},
    "ex_slider": {"en": "Time (ticks)", "zh": "时间（tick）"},
    "ex_slider_help": {"en": "The clock: at time 3, ticks 0, 1 and 2 have run. Charts, tables and the narration "
                             "show what has happened by then.",
                       "zh": "时钟：时间为 3 时，tick 0、1、2 已经运行。图、表和解说显示到此为止发生的事。"},
    "ex_play": {"en": "▶ Play", "zh": "▶ 播放"},
    "ex_pause": {"en": "⏸ Pause", "zh": "⏸ 暂停"},
    "ex_play_help": {"en": "Play the ticks one after another (from the start when the story is over).",
                     "zh": "逐个 tick 播放（结束后从头开始）。"},
    "ex_speed": {"en": "Speed (ticks a second)", "zh": "速度（每秒 tick 数）"},
    "ex_earlier": {"en": "Earlier ticks", "zh": "更早的 tick"},
    "ex_playing_at": {"en": "Time {tick} of {end} ticks (pause to move the clock by hand)",
                      "zh": "时间 {tick} / {end} tick（暂停后可手动拖动时钟）"},
    "ex_start": {"en": "Back to time 0", "zh": "回到时间 0"},
    "ex_col": {"en": "{metric} {label}", "zh": "{metric} {label}"},
    "ex_legend": {"en": "Times in ticks. A = static batching, B = continuous batching; {pending} = not known yet "
                        "at this time.",
                  "zh": "时间单位为 tick。A = 静态批处理，B = 连续批处理；{pending} = 此刻尚未知道。"},
    "ex_short_queue_time": {"en": "queue", "zh": "排队"},
    "ex_short_ttft": {"en": "TTFT", "zh": "TTFT"},
    "ex_short_tpot": {"en": "TPOT", "zh": "TPOT"},
    "ex_short_e2e": {"en": "E2E", "zh": "端到端"},
    "ex_m_makespan": {"en": "makespan (ticks)", "zh": "makespan（tick）"},
    "ex_m_throughput": {"en": "throughput (tokens a tick)", "zh": "吞吐（每 tick token 数）"},
    "ex_m_padding_waste": {"en": "padding waste (token-work)", "zh": "padding 浪费（token-work）"},
    "ex_m_utilization": {"en": "budget used", "zh": "预算利用率"},
    "ex_m_ttft_p50": {"en": "TTFT p50 (ticks)", "zh": "TTFT p50（tick）"},
    "ex_m_e2e_p50": {"en": "E2E latency p50 (ticks)", "zh": "端到端延迟 p50（tick）"},
    "ex_takeaway_pending": {"en": "The summary waits for the end of both runs: press Play, or step forward.",
                            "zh": "两种策略都运行结束后才显示总结：点击播放，或逐 tick 前进。"},
    "ex_done": {"en": "t={tick}: every request is done; the run is over.", "zh": "t={tick}：所有请求完成，运行结束。"},
    "ex_back": {"en": "One tick back", "zh": "后退一个 tick"},
    "ex_forward": {"en": "One tick forward", "zh": "前进一个 tick"},
    "ex_overall": {"en": "Overall", "zh": "整体指标"},
    "ex_per_request": {"en": "Per request", "zh": "逐请求指标"},
    "ex_takeaway": {
        "en": "Static: makespan 11, padding waste 5 (2 prompt padding + 3 idle decode slots of B), throughput "
              "1.0, C's TTFT 5. Continuous: makespan 8, waste 0, throughput 1.375, C's TTFT 2. Every TPOT is 1.",
        "zh": "静态：makespan 11，padding 浪费 5（2 个 prompt padding + B 的 3 个空闲 decode 槽位），吞吐 1.0，"
              "C 的 TTFT 为 5。连续：makespan 8，浪费 0，吞吐 1.375，C 的 TTFT 为 2。所有请求的 TPOT 都是 1。"},
    "ex_costs_link": {"en": "Every TPOT here is 1 tick. What does continuous batching cost in milliseconds? →",
                      "zh": "这里每个 TPOT 都是 1 个 tick。以毫秒计，连续批处理的代价是什么？→"},
    "ex_open_lab": {"en": "Open this trace in the trace lab", "zh": "在 Trace 实验室中打开此 trace"},
    "ex_narration": {"en": "**Time {tick}**: what happened, tick by tick", "zh": "**时间 {tick}**：逐 tick 发生了什么"},
    "ex_narration_empty": {"en": "Time 0: nothing has run yet. Press Play, or step forward.",
                           "zh": "时间 0：还没有运行任何 tick。点击播放，或逐 tick 前进。"},
    "rule_static_wait": {"en": ": a static batch is closed until its longest member finishes",
                         "zh": "：静态批次在其最长的成员完成之前不接纳新请求"},
    "rule_static_admit": {"en": ": a new static batch starts only when the previous one is over",
                          "zh": "：上一个静态批次结束后，新批次才开始"},
    "rule_static_padding": {"en": ": a static batch keeps a finished member's slot until the whole batch ends",
                            "zh": "：静态批次中已完成的成员仍占着槽位，直到整个批次结束"},
    "rule_continuous_finish": {"en": ": its slot is free for the next iteration",
                               "zh": "：它的槽位在下一轮迭代即可复用"},
    "rule_continuous_admit": {"en": " at once: continuous batching admits at every iteration, into the budget "
                                    "the decoders leave",
                              "zh": "，立即加入：连续批处理每轮迭代都接纳新请求，使用 decode 剩下的预算"},

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
    "col_policy": {"en": "policy", "zh": "策略"},
    "card_throughput": {"en": "tokens/{per}", "zh": "token/{per}"},
    "card_goodput_requests": {"en": "goodput", "zh": "goodput"},
    "lab_per_request_key": {"en": "Two rows a request: A = {a}, B = {b}.", "zh": "每个请求两行：A = {a}，B = {b}。"},
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
    "m_throughput": {"en": "throughput (tokens/{per})", "zh": "吞吐（token/{per}）"},
    "m_request_throughput": {"en": "requests/{per}", "zh": "请求/{per}"},
    "with_unit": {"en": "{label} ({unit})", "zh": "{label}（{unit}）"},
    "per_tick": {"en": "tick", "zh": "tick"},
    "per_ms": {"en": "ms", "zh": "毫秒"},
    "m_padding_waste": {"en": "padding waste", "zh": "padding 浪费"},
    "m_utilization": {"en": "budget utilization", "zh": "预算利用率"},
    "m_goodput": {"en": "goodput", "zh": "goodput"},
    "m_goodput_requests": {"en": "goodput (requests meeting the SLOs)", "zh": "goodput（满足 SLO 的请求数）"},
    "m_slo_attainment": {"en": "SLO attainment", "zh": "SLO 达成率"},
    **{f"m_{metric}_p{q}": {"en": f"{label} p{q}", "zh": f"{label_zh} p{q}"}
       for metric, label, label_zh in (("ttft", "TTFT", "TTFT"), ("tpot", "TPOT", "TPOT"),
                                       ("itl", "inter-token gap", "token 间隔"),
                                       ("e2e", "E2E latency", "端到端延迟"), ("queue_time", "queue time", "排队时间"))
       for q in (50, 90, 99)},

    # What changed
    "wc_faster": {"en": "finishes the trace sooner", "zh": "更早完成整条 trace"},
    "wc_slower": {"en": "finishes the trace later", "zh": "更晚完成整条 trace"},
    "wc_makespan": {"en": "**{b}** {verb} than **{a}**: makespan {mb} vs {ma} ({pct}).",
                    "zh": "**{b}** 比 **{a}** {verb}：makespan {mb} 对 {ma}（{pct}）。"},
    "wc_ttft": {"en": "Median TTFT moves from {ta:g} to {tb:g} {unit} with **{b}**.",
                "zh": "使用 **{b}** 后，TTFT 中位数从 {ta:g} 变为 {tb:g} {unit}。"},
    "wc_unit_tick": {"en": "ticks", "zh": "tick"},
    "wc_unit_ms": {"en": "ms", "zh": "毫秒"},
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
    "preset_long_prompt": {"en": "One long prompt stalls everyone (chunked prefill)", "zh": "一个长 prompt 让所有人停顿（分块 prefill）"},
    "preset_long_prompt_note": {
        "en": "Under a latency model (ms), chats decode while a 96-token document arrives at 60 ms. A prefills it in one iteration: every running chat waits ~58 ms for its next token (see the inter-token gap p99). B prefills it in chunks of 16 that share iterations with the decodes: the worst gap drops to ~21 ms, at the price of a later document and a few more iterations.",
        "zh": "在延迟模型（毫秒）下，几个对话正在 decode，一个 96 token 的文档在 60 毫秒到达。A 在一次 iteration 里 prefill 它：每个运行中的对话都要等约 58 毫秒才得到下一个 token（看 token 间隔 p99）。B 把它分成每块 16 个 token，与 decode 共享 iteration：最差间隔降到约 21 毫秒，代价是文档稍晚完成、iteration 稍多。"},
    "preset_kv_thrash": {"en": "KV too small: overcommit and recompute vs reservation", "zh": "KV 太小：超额分配与重算 vs 预留"},
    "preset_kv_thrash_note": {
        "en": "A cache of 16 blocks (64 tokens) for requests that grow to 32 tokens each. A reserves prompt + output: two run at a time, never preempted. B overcommits: many start at once, then run out of blocks and preempt the latest arrivals, which prefill their whole context again — look at the KV chart's preemption marks, the recomputed tokens and the stretched TPOT.",
        "zh": "cache 只有 16 个 block（64 个 token），每个请求会增长到 32 个 token。A 预留 prompt + 输出：一次只跑两个，从不被抢占。B 超额分配：很多请求同时开始，随后 block 用完，抢占最晚到达的请求，它们要重新 prefill 整个上下文——看 KV 图上的抢占标记、重算的 token 数和被拉长的 TPOT。"},
    "preset_vip": {"en": "VIP tenant", "zh": "VIP 租户"},
    "preset_vip_note": {
        "en": "A burst of free-tier requests and a few VIP ones (priority 0), at most 4 running. A serves in arrival order; B serves by priority and lets a VIP preempt a free request. Compare the per-tenant tables: the VIP TTFT falls while the free tier barely moves.",
        "zh": "一波免费用户请求与少量 VIP 请求（优先级 0），最多同时运行 4 个。A 按到达顺序服务；B 按优先级服务，并允许 VIP 抢占免费请求。对比按租户的表格：VIP 的 TTFT 大幅下降，免费用户几乎不变。"},
    "preset_user_stop": {"en": "A user hits stop", "zh": "用户点击停止"},
    "preset_user_stop_note": {
        "en": "Every third user stops their answer 6 ticks after arriving (the cancel_at column). Continuous batching frees the slot at the next iteration (one token made after the stop is wasted); static batching keeps it as padding until the batch ends.",
        "zh": "每三个用户中有一个在到达 6 个 tick 后停止回答（cancel_at 列）。连续批处理在下一次 iteration 就释放槽位（停止后生成的一个 token 被浪费）；静态批处理则把它当作 padding 一直占到 batch 结束。"},
    "preset_graph_buckets": {"en": "Graph buckets pad small batches", "zh": "graph bucket 为小 batch 补齐"},
    "preset_graph_buckets_note": {
        "en": "B runs decode-only iterations as CUDA graphs captured for batches of 1, 2, 4, 8, 16 and 32: a batch of 5 runs as 8. The yellow bars above the budget are those padding slots, computed for nothing.",
        "zh": "B 用为 1、2、4、8、16、32 大小捕获的 CUDA graph 运行纯 decode 的 iteration：5 个请求的 batch 按 8 运行。预算线之上的黄色部分就是这些白白计算的 padding 槽位。"},
    "preset_speculation": {"en": "Speculation at 60% acceptance", "zh": "60% 接受率的投机解码"},
    "preset_speculation_note": {
        "en": "B drafts 3 tokens a step and the target model accepts each with probability 0.6: a step costs 4 token-work but commits 1 to 4 tokens, so answers finish in fewer iterations (look at the multi-token steps in the Gantt) while the budget chart fills faster.",
        "zh": "B 每步起草 3 个 token，目标模型以 0.6 的概率接受每一个：每步花 4 个 token-work，但提交 1 到 4 个 token，因此回答用更少的 iteration 完成（看 Gantt 中的多 token 步），同时预算图被更快填满。"},
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
    "cfg_slo_ttft": {"en": "SLO: TTFT at most ({unit}, 0 = none)", "zh": "SLO：TTFT 上限（{unit}，0 表示不设）"},
    "cfg_slo_tpot": {"en": "SLO: TPOT at most ({unit}, 0 = none)", "zh": "SLO：TPOT 上限（{unit}，0 表示不设）"},
    "cfg_slo_e2e": {"en": "SLO: E2E at most ({unit}, 0 = none)", "zh": "SLO：端到端延迟上限（{unit}，0 表示不设）"},
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

    # What a real scheduler also decides (issue: scheduler realism)
    "phase_stalled": {"en": "stalled", "zh": "停顿"},
    "phase_preempted": {"en": "preempted", "zh": "被抢占"},
    "phase_swapped": {"en": "swapped out", "zh": "已换出"},
    "phase_swapping": {"en": "swapping in", "zh": "换入中"},
    "phase_graph_padding": {"en": "graph padding", "zh": "graph padding"},
    "unit_ms": {"en": "ms", "zh": "毫秒"},
    "event_preempt": {"en": "preempted (recompute)", "zh": "被抢占（重算）"},
    "event_swap_out": {"en": "swapped out", "zh": "换出"},
    "event_swap_in": {"en": "swapped in", "zh": "换入"},
    "event_cancel": {"en": "cancelled", "zh": "取消"},
    "event_reject": {"en": "rejected", "zh": "拒绝"},
    "hover_event_preempt": {"en": "<b>%{y}</b> preempted at %{x}: its KV is dropped, it will prefill again",
                            "zh": "<b>%{y}</b> 在 %{x} 被抢占：丢弃其 KV，之后重新 prefill"},
    "hover_event_swap_out": {"en": "<b>%{y}</b> swapped out to host memory at %{x}",
                             "zh": "<b>%{y}</b> 在 %{x} 被换出到主机内存"},
    "hover_event_swap_in": {"en": "<b>%{y}</b> starts swapping back in at %{x}", "zh": "<b>%{y}</b> 在 %{x} 开始换回"},
    "hover_event_cancel": {"en": "<b>%{y}</b>: its user stops it at %{x}", "zh": "<b>%{y}</b>：用户在 %{x} 停止了它"},
    "hover_event_reject": {"en": "<b>%{y}</b> rejected at %{x}: it could never fit the KV cache",
                           "zh": "<b>%{y}</b> 在 %{x} 被拒绝：KV cache 永远放不下它"},
    "reason_finished": {"en": "finished", "zh": "完成"},
    "reason_cancelled": {"en": "cancelled", "zh": "已取消"},
    "reason_rejected": {"en": "rejected", "zh": "被拒绝"},
    "kv_title": {"en": "KV blocks in use · {policy}", "zh": "KV block 占用 · {policy}"},
    "kv_blocks": {"en": "blocks held", "zh": "占用的 block"},
    "kv_total": {"en": "blocks in use", "zh": "已用 block"},
    "kv_capacity": {"en": "cache: {blocks} blocks", "zh": "cache：{blocks} 个 block"},
    "hover_kv": {"en": "<b>{name}</b>: {blocks} blocks<br>{start} → {end}", "zh": "<b>{name}</b>：{blocks} 个 block<br>{start} → {end}"},
    "axis_blocks": {"en": "KV blocks", "zh": "KV block"},
    "m_finished": {"en": "finished requests", "zh": "完成的请求"},
    "m_cancelled": {"en": "cancelled requests", "zh": "取消的请求"},
    "m_rejected": {"en": "rejected requests", "zh": "被拒绝的请求"},
    "m_preemptions": {"en": "preemptions", "zh": "抢占次数"},
    "m_recomputed_tokens": {"en": "tokens recomputed", "zh": "重算的 token"},
    "m_swapped_blocks": {"en": "blocks swapped out", "zh": "换出的 block"},
    "m_wasted_tokens": {"en": "tokens generated, never delivered", "zh": "生成但未送达的 token"},
    "m_wasted": {"en": "wasted tokens", "zh": "浪费的 token"},
    "m_kv_peak": {"en": "KV blocks, peak", "zh": "KV block 峰值"},
    "m_kv_mean": {"en": "KV blocks, mean", "zh": "KV block 平均"},
    "m_graph_padding": {"en": "CUDA-graph padding slots", "zh": "CUDA graph padding 槽位"},
    "m_spec_accepted": {"en": "draft tokens accepted", "zh": "被接受的草稿 token"},
    "m_finish_reason": {"en": "ended", "zh": "结束方式"},
    "col_requests": {"en": "requests", "zh": "请求数"},
    "col_finished": {"en": "finished", "zh": "完成"},
    "col_cancelled": {"en": "cancelled", "zh": "取消"},
    "col_rejected": {"en": "rejected", "zh": "拒绝"},
    "col_goodput": {"en": "meet the SLOs", "zh": "满足 SLO"},
    "col_tokens": {"en": "tokens delivered", "zh": "送达 token"},
    "col_ttft_p50": {"en": "TTFT p50", "zh": "TTFT p50"},
    "col_ttft_p90": {"en": "TTFT p90", "zh": "TTFT p90"},
    "col_tpot_p50": {"en": "TPOT p50", "zh": "TPOT p50"},
    "col_e2e_p50": {"en": "E2E p50", "zh": "端到端 p50"},
    "col_e2e_p90": {"en": "E2E p90", "zh": "端到端 p90"},
    "lab_per_tenant": {"en": "Per tenant", "zh": "按租户"},
    "lab_per_priority": {"en": "Per priority", "zh": "按优先级"},
    "lab_rejected": {"en": "{n} request(s) could never fit the KV cache and were rejected: {names}.",
                     "zh": "有 {n} 个请求永远放不进 KV cache，已被拒绝：{names}。"},
    "wc_tpot": {"en": "TPOT p90 moves from {ta:.3g} to {tb:.3g} with **{b}**.",
                "zh": "使用 **{b}** 后，TPOT p90 从 {ta:.3g} 变为 {tb:.3g}。"},
    "wc_preemptions": {"en": "Preemptions: {pa} with **{a}** ({ra} tokens recomputed), {pb} with **{b}** ({rb} recomputed).",
                       "zh": "抢占：**{a}** {pa} 次（重算 {ra} 个 token），**{b}** {pb} 次（重算 {rb} 个）。"},
    "cfg_hardware": {"en": "KV cache and cost model (the same for A and B)", "zh": "KV cache 与成本模型（A、B 相同）"},
    "cfg_kv_blocks": {"en": "KV cache blocks (0 = unlimited)", "zh": "KV cache block 数（0 表示不限）"},
    "cfg_kv_blocks_help": {"en": "Paged KV cache size. A request holding n tokens needs ceil(n / block size) blocks.",
                           "zh": "分页 KV cache 的大小。持有 n 个 token 的请求需要 ceil(n / block 大小) 个 block。"},
    "cfg_block_size": {"en": "Tokens a block holds", "zh": "每个 block 的 token 数"},
    "cfg_block_size_help": {"en": "vLLM's default is 16; small blocks suit the classroom's small numbers.",
                            "zh": "vLLM 默认为 16；课堂上的小例子适合用小 block。"},
    "cfg_swap_cost": {"en": "Swap-in time", "zh": "换入耗时"},
    "cfg_swap_cost_help": {"en": "Time a swapped-out request needs to bring its blocks back from host memory.",
                           "zh": "被换出的请求把 block 从主机内存换回所需的时间。"},
    "cfg_cost": {"en": "Cost model", "zh": "成本模型"},
    "cfg_cost_help": {"en": "Ticks: every iteration lasts one tick (the seed's teaching model). Linear: an iteration lasts c0 + c_prefill·prefill tokens + c_decode·decode sequences + c_attn·context read, in ms; arrivals are then read as ms.",
                      "zh": "Tick：每次 iteration 持续一个 tick（设计文档的教学模型）。线性：一次 iteration 耗时 c0 + c_prefill·prefill token + c_decode·decode 序列 + c_attn·读取的上下文（毫秒）；此时到达时间按毫秒解释。"},
    "cost_ticks": {"en": "ticks (token-work)", "zh": "tick（token-work）"},
    "cost_linear": {"en": "linear latency (ms)", "zh": "线性延迟（毫秒）"},
    "cfg_cost_preset": {"en": "Coefficients from", "zh": "系数预设"},
    "cost_preset_small_gpu": {"en": "a small GPU", "zh": "小型 GPU"},
    "cost_preset_big_gpu": {"en": "a big GPU", "zh": "大型 GPU"},
    "cost_preset_cpu_tiny_model": {"en": "a tiny model on a CPU", "zh": "CPU 上的小模型"},
    "cfg_c0": {"en": "c0 (ms)", "zh": "c0（毫秒）"},
    "cfg_c_prefill": {"en": "c_prefill (ms/token)", "zh": "c_prefill（毫秒/token）"},
    "cfg_c_decode": {"en": "c_decode (ms/sequence)", "zh": "c_decode（毫秒/序列）"},
    "cfg_c_attn": {"en": "c_attn (ms/context token)", "zh": "c_attn（毫秒/上下文 token）"},
    "cfg_c0_help": {"en": "Fixed cost of an iteration: kernel launches, scheduling.", "zh": "每次 iteration 的固定开销：kernel 启动、调度等。"},
    "cfg_c_prefill_help": {"en": "Cost of each prompt token prefilled.", "zh": "每个 prefill 的 prompt token 的开销。"},
    "cfg_c_decode_help": {"en": "Cost of each sequence decoding (a padded slot too).", "zh": "每个 decode 序列（包括 padding 槽位）的开销。"},
    "cfg_c_attn_help": {"en": "Cost of each KV token attention reads: decodes get slower as contexts grow.", "zh": "attention 每读取一个 KV token 的开销：上下文越长 decode 越慢。"},
    "cost_linear_note": {"en": "Prefill and decode tokens cost differently, so results under this model are in ms and differ from the token-work picture: each chart and table says which model it used.",
                         "zh": "prefill 与 decode token 的成本不同，因此该模型下的结果以毫秒计，与 token-work 的图景不同：每个图表都会说明使用的是哪种模型。"},
    "cost_used_linear": {"en": "These results use the linear latency model: times are in ms.", "zh": "以下结果使用线性延迟模型：时间单位为毫秒。"},
    "opt_title": {"en": "Scheduler options", "zh": "调度选项"},
    "opt_changed": {"en": "Options changed: {summary}", "zh": "已修改的选项：{summary}"},
    "opt_order": {"en": "Queue order", "zh": "队列顺序"},
    "opt_order_help": {"en": "Which waiting request goes first when budget, a slot and KV room free up.", "zh": "预算、槽位和 KV 空间腾出时先接纳哪个等待中的请求。"},
    "opt_order_fcfs_skip": {"en": "FCFS, skip what does not fit (the seed)", "zh": "FCFS，跳过放不下的（设计文档）"},
    "opt_order_fcfs": {"en": "FCFS, head-of-line blocking", "zh": "FCFS，队头阻塞"},
    "opt_order_priority": {"en": "priority (lower value first)", "zh": "优先级（值小者优先）"},
    "opt_order_sjf": {"en": "shortest job first", "zh": "最短作业优先"},
    "opt_order_edf": {"en": "earliest deadline first", "zh": "最早截止优先"},
    "opt_order_aging": {"en": "priority with aging", "zh": "带老化的优先级"},
    "opt_sjf_key": {"en": "Job size from", "zh": "作业长度依据"},
    "opt_sjf_key_prompt": {"en": "prompt length", "zh": "prompt 长度"},
    "opt_sjf_key_output": {"en": "known output length", "zh": "已知的输出长度"},
    "opt_aging_rate": {"en": "Aging rate (priority a tick waited)", "zh": "老化速率（每等待一个 tick 提升的优先级）"},
    "opt_aging_rate_help": {"en": "A waiting request's priority value drops by this much per unit of time, so nothing waits forever.", "zh": "等待中的请求每单位时间优先级值降低这么多，因此不会永远等待。"},
    "opt_preemptive_priority": {"en": "Higher priority may preempt", "zh": "高优先级可以抢占"},
    "opt_preemptive_priority_help": {"en": "When the best waiting request has no slot or KV room, running requests of lower priority are preempted (by recompute).", "zh": "当最优先的等待请求没有槽位或 KV 空间时，抢占优先级更低的运行中请求（以重算方式）。"},
    "opt_tenant_quotas": {"en": "Tenant quotas (tenant=share of the budget)", "zh": "租户配额（租户=预算份额）"},
    "opt_tenant_quotas_help": {"en": "For example vip=0.75, free=0.25: a tenant's token-work in an iteration stays within its share while others run.", "zh": "例如 vip=0.75, free=0.25：当有其他请求运行时，租户在一次 iteration 中的 token-work 不超过其份额。"},
    "opt_tenant_quotas_format": {"en": "write tenant=share pairs separated by commas, such as vip=0.5, free=0.5", "zh": "请写成逗号分隔的 租户=份额，例如 vip=0.5, free=0.5"},
    "opt_buckets_format": {"en": "write batch sizes separated by commas, such as 1, 2, 4, 8", "zh": "请写成逗号分隔的 batch 大小，例如 1, 2, 4, 8"},
    "opt_timeout": {"en": "Timeout (0 = none)", "zh": "超时（0 表示不设）"},
    "opt_timeout_help": {"en": "Cancel a request this long after its arrival if it has not finished (the cancel_at column cancels single requests).", "zh": "请求到达后超过这么久仍未完成就取消（cancel_at 列可以取消单个请求）。"},
    "opt_chunk_size": {"en": "Chunked prefill: tokens a chunk (0 = off)", "zh": "分块 prefill：每块 token 数（0 表示关闭）"},
    "opt_chunk_size_help": {"en": "Sarathi-style: a long prompt is prefilled over several iterations in chunks that share them with decodes; a prompt longer than the budget becomes schedulable.", "zh": "Sarathi 风格：长 prompt 分多次 iteration 分块 prefill，与 decode 共享 iteration；超过预算的 prompt 也能被调度。"},
    "opt_mixing": {"en": "Prefill and decode", "zh": "prefill 与 decode 的混合"},
    "opt_mixing_help": {"en": "Decode-first: decodes, then prefill in the budget left. Prefill-first: an iteration with prefill work does no decodes, so running requests stall.", "zh": "decode 优先：先 decode，剩余预算再 prefill。prefill 优先：有 prefill 工作的 iteration 不做 decode，运行中的请求会停顿。"},
    "opt_mixing_decode_first": {"en": "decode-first, mixed", "zh": "decode 优先，混合"},
    "opt_mixing_prefill_first": {"en": "prefill-first, not mixed", "zh": "prefill 优先，不混合"},
    "opt_kv_admission": {"en": "KV admission", "zh": "KV 准入"},
    "opt_kv_admission_help": {"en": "Reserve: blocks for prompt and whole output at admission (never preempts). Overcommit: blocks as tokens grow; preempt when they run out.", "zh": "预留：接纳时为 prompt 和全部输出预留 block（不会抢占）。超额分配：随 token 增长分配 block，不够时抢占。"},
    "opt_kv_admission_reserve": {"en": "reserve prompt + output", "zh": "预留 prompt + 输出"},
    "opt_kv_admission_overcommit": {"en": "overcommit, grow on demand", "zh": "超额分配，按需增长"},
    "opt_preempt": {"en": "When blocks run out", "zh": "block 不够时"},
    "opt_preempt_help": {"en": "Recompute: drop the victim's KV and prefill prompt + generated tokens again later. Swap: move its blocks to host memory and bring them back.", "zh": "重算：丢弃受害者的 KV，之后重新 prefill prompt + 已生成 token。换出：把它的 block 移到主机内存，之后再换回。"},
    "opt_preempt_recompute": {"en": "preempt by recompute", "zh": "抢占并重算"},
    "opt_preempt_swap": {"en": "preempt by swap", "zh": "抢占并换出"},
    "opt_victim": {"en": "Victim", "zh": "受害者"},
    "opt_victim_latest": {"en": "latest arrival", "zh": "最晚到达的"},
    "opt_victim_lowest_priority": {"en": "lowest priority", "zh": "优先级最低的"},
    "opt_graph_buckets": {"en": "CUDA-graph batch sizes (empty = eager)", "zh": "CUDA graph batch 大小（空表示 eager）"},
    "opt_graph_buckets_help": {"en": "Captured decode batch sizes, such as 1, 2, 4, 8, 16, 32: a decode-only batch is padded up to the next one, or runs eagerly above the largest.", "zh": "已捕获的 decode batch 大小，例如 1, 2, 4, 8, 16, 32：纯 decode 的 batch 补齐到下一个大小，超过最大值则 eager 运行。"},
    "opt_spec_tokens": {"en": "Draft tokens k", "zh": "草稿 token 数 k"},
    "opt_spec_tokens_help": {"en": "Speculative decoding: each step verifies k draft tokens (k + 1 token-work) and commits 1 to k + 1 tokens.", "zh": "投机解码：每步验证 k 个草稿 token（k + 1 个 token-work），提交 1 到 k + 1 个 token。"},
    "opt_spec_accept": {"en": "Acceptance", "zh": "接受率"},
    "opt_seed": {"en": "Seed", "zh": "种子"},
    "opt_short_order": {"en": "order {value}", "zh": "顺序 {value}"},
    "opt_short_sjf_key": {"en": "by {value}", "zh": "按 {value}"},
    "opt_short_aging_rate": {"en": "aging {value}", "zh": "老化 {value}"},
    "opt_short_preemptive_priority": {"en": "preemptive", "zh": "可抢占"},
    "opt_short_tenant_quotas": {"en": "quotas {value}", "zh": "配额 {value}"},
    "opt_short_chunk_size": {"en": "chunks of {value}", "zh": "分块 {value}"},
    "opt_short_mixing": {"en": "{value}", "zh": "{value}"},
    "opt_short_kv_admission": {"en": "KV {value}", "zh": "KV {value}"},
    "opt_short_preempt": {"en": "{value}", "zh": "{value}"},
    "opt_short_victim": {"en": "victim {value}", "zh": "受害者 {value}"},
    "opt_short_timeout": {"en": "timeout {value}", "zh": "超时 {value}"},
    "opt_short_graph_buckets": {"en": "graphs {value}", "zh": "graph {value}"},
    "opt_short_spec_tokens": {"en": "speculate {value}", "zh": "投机 {value}"},
    "opt_short_spec_accept": {"en": "accept {value}", "zh": "接受率 {value}"},
    "opt_short_seed": {"en": "seed {value}", "zh": "种子 {value}"},

    # Real model
    "nav_real": {"en": "Real model", "zh": "真实模型"},
    "home_link_real_model": {"en": "Real model: a tiny transformer served by the same schedulers, measured",
                             "zh": "真实模型：用同一套调度器服务一个小 Transformer，并实测"},
    "rm_title": {"en": "Real model", "zh": "真实模型"},
    "rm_intro": {
        "en": "A byte-level GPT with {params:,} parameters, trained on the Python standard library's source (validation loss {loss} nats/byte), with a paged KV cache. The very scheduler classes of the simulator drive it: every iteration is **one batched forward pass** over all scheduled tokens (prefill chunks and decodes packed together), and the timeline records measured milliseconds. Greedy decoding: each request makes exactly its output tokens.",
        "zh": "一个字节级 GPT，{params:,} 个参数，在 Python 标准库源码上训练（验证损失 {loss} nats/byte），带分页 KV cache。驱动它的正是模拟器里的同一批调度器类：每次 iteration 都是对所有被调度 token 的**一次批量前向**（prefill 分块与 decode 打包在一起），时间线记录实测的毫秒数。贪心解码：每个请求恰好生成其输出 token 数。"},
    "rm_device": {"en": "Device", "zh": "设备"},
    "rm_device_help": {"en": "CUDA when the server has a GPU, else the CPU.", "zh": "服务器有 GPU 时用 CUDA，否则用 CPU。"},
    "rm_dtype": {"en": "Precision", "zh": "精度"},
    "rm_dtype_help": {"en": "In float64 every policy's outputs equal each request generated alone, token for token.",
                      "zh": "在 float64 下，每种策略的输出都与单独生成每个请求的结果逐 token 相同。"},
    "rm_arrivals": {"en": "Arrivals in", "zh": "到达时间单位"},
    "rm_arrivals_tick": {"en": "iterations (the simulator's schedule)", "zh": "iteration（与模拟器相同的调度）"},
    "rm_arrivals_ms": {"en": "milliseconds of wall time", "zh": "真实时间的毫秒"},
    "rm_arrivals_help": {"en": "Iterations: a request arriving at 3 joins at the 4th iteration, as in the simulator. Milliseconds: it joins once that much time has passed.",
                         "zh": "iteration：到达时间为 3 的请求在第 4 次 iteration 加入，与模拟器一致。毫秒：经过相应时间后才加入。"},
    "rm_no_model": {"en": "The model cannot be loaded: {reason}", "zh": "无法加载模型：{reason}"},
    "rm_trace": {"en": "1 · Requests", "zh": "1 · 请求"},
    "rm_source": {"en": "Trace", "zh": "Trace"},
    "rm_source_mixed": {"en": "mixed lengths", "zh": "长度混合"},
    "rm_source_short_chats": {"en": "short chats", "zh": "短对话"},
    "rm_source_long_outputs": {"en": "long answers", "zh": "长回答"},
    "rm_source_lab": {"en": "the lab's trace", "zh": "实验室的 trace"},
    "rm_prompt_seed": {"en": "Prompt seed", "zh": "prompt 种子"},
    "rm_prompt_seed_help": {"en": "Prompts are a `text` column, or pieces of real Python source of each request's prompt length drawn with this seed.",
                            "zh": "prompt 取自 `text` 列，或用该种子从真实 Python 源码中截取与请求 prompt 长度相同的片段。"},
    "rm_prompt_text": {"en": "prompt text", "zh": "prompt 文本"},
    "rm_bad_trace": {"en": "The lab's trace cannot run here:", "zh": "实验室的 trace 无法在这里运行："},
    "rm_too_many": {"en": "The lab's trace has {n} requests; a run on the shared model takes at most {limit} (other users wait while it runs). Serve larger traces with `python -m gpu_demo run`.",
                    "zh": "实验室的 trace 有 {n} 个请求；共享模型上的一次运行最多 {limit} 个（运行期间其他用户需要等待）。更大的 trace 请用 `python -m gpu_demo run`。"},
    "rm_scaled": {"en": "Prompt and output lengths were scaled down so every request fits the model's context of {context} bytes.",
                  "zh": "prompt 与输出长度已按比例缩小，使每个请求都能放进模型 {context} 字节的上下文。"},
    "rm_run": {"en": "Run on the model ▶", "zh": "在模型上运行 ▶"},
    "rm_stop": {"en": "Stop", "zh": "停止"},
    "rm_stop_help": {"en": "Stops the run (its partial results are dropped).", "zh": "停止运行（丢弃未完成的结果）。"},
    "rm_waiting": {"en": "Waiting for the model: another run is using it…", "zh": "等待模型：另一个运行正在使用它…"},
    "rm_streaming": {"en": "{name}, as it is generated:", "zh": "{name}（生成中）："},
    "rm_running": {"en": "Running policy {label} on the model…", "zh": "正在模型上运行策略 {label}…"},
    "rm_cannot_run": {"en": "This cannot run: {reason}", "zh": "无法运行：{reason}"},
    "rm_press_run": {"en": "Press Run to serve these requests with the model under A and B.", "zh": "按“运行”，用模型在 A 和 B 下服务这些请求。"},
    "rm_measured_note": {"en": "Measured on {device} ({dtype}): times are wall-clock milliseconds.", "zh": "在 {device}（{dtype}）上实测：时间为真实毫秒。"},
    "rm_tokens_per_s": {"en": "tokens/s · {label}", "zh": "token/秒 · {label}"},
    "rm_overhead": {"en": "{share} of the iteration time was spent outside the model (scheduling, batching).", "zh": "iteration 时间的 {share} 花在模型之外（调度、组 batch）。"},
    "rm_prediction": {"en": "The simulator's prediction", "zh": "模拟器的预测"},
    "rm_prediction_intro": {"en": "A linear latency model fitted to this run's iterations (t = c0 + c_prefill·prefill tokens + c_decode·decode rows + c_attn·context read), then the simulator runs the same requests with it.",
                            "zh": "把线性延迟模型（t = c0 + c_prefill·prefill token + c_decode·decode 行 + c_attn·读取的上下文）拟合到本次运行的各 iteration，再用它让模拟器运行相同的请求。"},
    "rm_fit": {"en": "{label}: c0 {c0} ms, c_prefill {c_prefill}, c_decode {c_decode}, c_attn {c_attn}; fit error {error}% of the mean iteration",
               "zh": "{label}：c0 {c0} 毫秒，c_prefill {c_prefill}，c_decode {c_decode}，c_attn {c_attn}；拟合误差为平均 iteration 的 {error}%"},
    "rm_measured": {"en": "measured", "zh": "实测"},
    "rm_predicted": {"en": "predicted", "zh": "预测"},
    "rm_error": {"en": "error", "zh": "误差"},
    "rm_outputs": {"en": "What the model wrote (policy B)", "zh": "模型生成的内容（策略 B）"},

    # Input problems (the codes of sim.trace.MESSAGES)
    "prob_empty": {"en": "is empty", "zh": "为空"},
    "prob_no_prompt": {"en": "is empty, and so is the text that could stand in for it",
                       "zh": "为空，可以代替它的 text 也为空"},
    "prob_not_integer": {"en": "must be a whole number, got {value}", "zh": "必须是整数，实际为 {value}"},
    "prob_below_min": {"en": "must be at least {min}, got {value}", "zh": "不能小于 {min}，实际为 {value}"},
    "prob_above_max": {"en": "must be at most {max}, got {value}", "zh": "不能大于 {max}，实际为 {value}"},
    "prob_too_long": {"en": "is longer than {max} characters", "zh": "超过 {max} 个字符"},
    "prob_duplicate": {"en": "repeats the name of row {other}", "zh": "与第 {other} 行重名"},
    "prob_missing_column": {"en": "the column is missing", "zh": "缺少该列"},
    "prob_before_arrival": {"en": "must not be before the arrival tick {arrival}", "zh": "不能早于到达 tick {arrival}"},
    "prob_no_rows": {"en": "the trace has no requests", "zh": "trace 中没有请求"},
    "prob_unreadable": {"en": "cannot be read: {detail}", "zh": "无法读取：{detail}"},
    "prob_over_context": {"en": "prompt and output need {tokens} positions; the model has {context}",
                          "zh": "prompt 与输出共需 {tokens} 个位置；模型只有 {context} 个"},
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

    # What it costs (the cost lesson)
    "nav_costs": {"en": "What it costs", "zh": "代价"},
    "unit_s": {"en": "s", "zh": "秒"},
    "cost_title": {"en": "What continuous batching costs", "zh": "连续批处理的代价"},
    "cost_intro": {
        "en": "The worked example shows what iteration-level scheduling wins. Each win has a price, and ticks "
              "hide it: in the tick model every iteration lasts one tick, so every TPOT is 1. Here iterations "
              "take milliseconds, as on a real server: **c0 + c_prefill × prefill tokens + c_decode × decoding "
              "requests + c_attn × context read**. Five costs, each on a trace that shows it, each named on its "
              "chart with its figure. (Lesson 1 reads the worked example's ticks as {ms} ms each.)",
        "zh": "示例推演展示了 iteration 级调度赢在哪里。每一项收益都有代价，而 tick 把它藏了起来：tick 模型里每次迭代都"
              "是 1 个 tick，所以 TPOT 总是 1。这里的迭代像真实服务器一样以毫秒计：**c0 + c_prefill × prefill token 数 "
              "+ c_decode × decode 请求数 + c_attn × 读取的上下文**。下面五种代价，各用一条能显出它的 trace，并在图上"
              "标出名称和数值。（第 1 课把示例的每个 tick 读作 {ms} 毫秒。）"},
    "cost_back": {"en": "Back to the worked example", "zh": "回到示例推演"},
    "cost_running": {"en": "Simulating the five lessons…", "zh": "正在模拟五节课……"},
    "cost_download": {"en": "Download this table (CSV)", "zh": "下载此表（CSV）"},
    "cost_example_gantt": {"en": "The worked example in ms, continuous batching", "zh": "以毫秒计的示例推演：连续批处理"},
    "cost_continuous": {"en": "continuous", "zh": "连续"},
    "cost_chunk2": {"en": "chunked prefill, 2 tokens", "zh": "分块 prefill，每块 2 个 token"},
    "cost_chunk1": {"en": "chunked prefill, 1 token", "zh": "分块 prefill，每块 1 个 token"},
    "cost_chunk128": {"en": "chunked prefill, 128 tokens", "zh": "分块 prefill，每块 128 个 token"},
    "cost_fcfs": {"en": "strict arrival order (fcfs)", "zh": "严格到达顺序（fcfs）"},
    "cost_skip": {"en": "skip what does not fit (fcfs-skip)", "zh": "跳过装不下的（fcfs-skip）"},
    "cost_fcfs_chunk": {"en": "fcfs + chunked prefill", "zh": "fcfs + 分块 prefill"},
    "cost_reserve": {"en": "reserve the whole output", "zh": "预留完整输出（reserve）"},
    "cost_overcommit": {"en": "overcommit", "zh": "超额准入（overcommit）"},
    "cost_static": {"en": "static", "zh": "静态"},
    "cost_col_policy": {"en": "policy", "zh": "策略"},
    "cost_col_a_worst": {"en": "A's longest gap", "zh": "A 的最长间隔"},
    "cost_col_a_ttft": {"en": "A's TTFT", "zh": "A 的 TTFT"},
    "cost_col_c_ttft": {"en": "C's TTFT", "zh": "C 的 TTFT"},
    "cost_col_makespan": {"en": "makespan", "zh": "总时长"},
    "cost_col_itl_p50": {"en": "token gap p50", "zh": "间隔 p50"},
    "cost_col_itl_p99": {"en": "token gap p99", "zh": "间隔 p99"},
    "cost_col_ratio": {"en": "p99 / p50", "zh": "p99 / p50"},
    "cost_col_ttft_p90": {"en": "TTFT p90", "zh": "TTFT p90"},
    "cost_col_ttft_p99": {"en": "TTFT p99", "zh": "TTFT p99"},
    "cost_col_short_wait": {"en": "short: median queue", "zh": "短：排队中位数"},
    "cost_col_long_wait": {"en": "long: median queue", "zh": "长：排队中位数"},
    "cost_col_long_max": {"en": "long: longest queue", "zh": "长：最长排队"},
    "cost_col_preemptions": {"en": "preemptions", "zh": "抢占次数"},
    "cost_col_recomputed": {"en": "tokens prefilled again", "zh": "重算的 token"},
    "cost_col_iterations": {"en": "iterations", "zh": "迭代数"},
    "cost_col_decisions": {"en": "scheduling decisions", "zh": "调度决策数"},
    "cost_col_changes": {"en": "joins + leaves", "zh": "加入 + 离开"},
    "cost_col_plan": {"en": "planning time / iteration", "zh": "每次迭代的规划时间"},
    "cost_interference_title": {"en": "Prefill–decode interference", "zh": "Prefill–decode 干扰"},
    "cost_interference_named": {
        "en": "A waits {worst} for a token while C prefills, against {usual} otherwise (+{rise})",
        "zh": "C 做 prefill 时 A 等一个 token 要 {worst}，平时为 {usual}（+{rise}）"},
    "cost_interference_story": {
        "en": "C arrives while A and B decode. Continuous batching admits it at once, so C's 3 prefill tokens "
              "share an iteration with A's and B's decodes: that iteration lasts **{worst}** instead of **{usual}**, "
              "and A waits **+{rise}** for that token. That is prefill–decode interference: a newcomer's prefill "
              "stretches the gap of everyone already decoding. Chunked prefill (Sarathi) spreads a prompt over "
              "several iterations: with 1-token chunks A's longest gap is **{chunked_worst}**, but prefills "
              "finish later: C's TTFT rises from **{c_ttft}** to **{c_ttft_chunked}**, and A's own from "
              "**{a_ttft}** to **{a_ttft_chunked}**.",
        "zh": "C 在 A、B decode 时到达。连续批处理立即接纳它，于是 C 的 3 个 prefill token 与 A、B 的 decode 同处一次"
              "迭代：这次迭代耗时 **{worst}** 而不是 **{usual}**，A 为这个 token 多等了 **+{rise}**。这就是 prefill–"
              "decode 干扰：新请求的 prefill 拉长了所有正在 decode 的请求的间隔。分块 prefill（Sarathi）把 prompt 分到"
              "多次迭代：每块 1 个 token 时 A 的最长间隔为 **{chunked_worst}**，但 prefill 完成得更晚：C 的 TTFT 从 "
              "**{c_ttft}** 升到 **{c_ttft_chunked}**，A 自己的从 **{a_ttft}** 升到 **{a_ttft_chunked}**。"},
    "cost_gap_index": {"en": "A's token gap (1st, 2nd, …)", "zh": "A 的第几个 token 间隔"},
    "cost_gap_axis": {"en": "gap ({unit})", "zh": "间隔（{unit}）"},
    "cost_jitter_title": {"en": "TPOT jitter", "zh": "TPOT 抖动"},
    "cost_jitter_named": {
        "en": "token gap p99 {p99} = {ratio}× p50 ({p50}); chunked prefill: {chunked_p99} = {chunked_ratio}×",
        "zh": "token 间隔 p99 {p99} = p50（{p50}）的 {ratio} 倍；分块 prefill：{chunked_p99} = {chunked_ratio} 倍"},
    "cost_jitter_story": {
        "en": "300 requests, 4 a second, with long-tailed prompts (median 200 tokens, some over 2,000). Every dot "
              "is an iteration: most last about **{p50}**, the time between two tokens of a decoding request. "
              "An iteration that carries a long prompt's prefill lasts much longer, and every request decoding in "
              "it waits with it: the p99 gap between tokens is **{p99}**, **{ratio}×** the median. A user sees "
              "the stream stutter. Chunks of 128 tokens cut the p99 to **{chunked_p99}** (**{chunked_ratio}×**), and "
              "pay for it in TTFT: p99 **{ttft}** becomes **{ttft_chunked}**.",
        "zh": "300 个请求，每秒 4 个，prompt 长尾分布（中位数 200 个 token，有的超过 2,000）。每个点是一次迭代：大多数"
              "约 **{p50}**，也就是 decode 请求两个 token 之间的时间。带着长 prompt prefill 的迭代要长得多，其中每个在 "
              "decode 的请求都跟着等待：token 间隔 p99 为 **{p99}**，是中位数的 **{ratio} 倍**。用户看到输出流一卡一卡。"
              "每块 128 个 token 把 p99 降到 **{chunked_p99}**（**{chunked_ratio} 倍**），代价是 TTFT：p99 从 **{ttft}** "
              "变为 **{ttft_chunked}**。"},
    "cost_iteration_axis": {"en": "iteration length ({unit})", "zh": "迭代时长（{unit}）"},
    "cost_hol_title": {"en": "Head-of-line blocking and starvation", "zh": "队头阻塞与饥饿"},
    "cost_hol_named": {
        "en": "fcfs: short prompts queue {short_strict} (HOL blocking); fcfs-skip: long ones {long_skip} (starved)",
        "zh": "fcfs：短 prompt 排队 {short_strict}（队头阻塞）；fcfs-skip：长 prompt 排队 {long_skip}（饥饿）"},
    "cost_hol_story": {
        "en": "Short prompts at 10 a second, and every tenth request a prompt of {long} tokens under a budget of "
              "1,024 tokens an iteration: a long prompt fits only when few requests decode. In **strict arrival "
              "order** a long prompt at the head of the queue blocks everyone behind it: short prompts wait "
              "**{short_strict}** at the median (head-of-line blocking). **Skipping** what does not fit lets them "
              "pass (**{short_skip}**), and the long prompts starve: **{long_skip}** at the median, up to "
              "**{long_skip_max}**. Chunked prefill lets a long prompt in piece by piece (long prompts "
              "**{long_chunked}**, short **{short_chunked}**) and pays in every decode's gap: token gap p50 "
              "**{itl}** becomes **{itl_chunked}**.",
        "zh": "短 prompt 每秒 10 个，每第十个请求是 {long} 个 token 的长 prompt，每次迭代预算 1,024 个 token：只有 decode "
              "的请求很少时长 prompt 才装得下。**严格到达顺序**下，队头的长 prompt 挡住后面所有人：短 prompt 排队中位数为 "
              "**{short_strict}**（队头阻塞）。**跳过**装不下的请求让短 prompt 先行（**{short_skip}**），长 prompt 于是"
              "挨饿：中位数 **{long_skip}**，最长 **{long_skip_max}**。分块 prefill 让长 prompt 一块一块进入（长 prompt "
              "**{long_chunked}**，短 prompt **{short_chunked}**），代价落在每个 decode 的间隔上：token 间隔 p50 从 "
              "**{itl}** 变为 **{itl_chunked}**。"},
    "cost_group_short": {"en": "short prompts: median", "zh": "短 prompt：中位数"},
    "cost_group_long": {"en": "long prompts: median", "zh": "长 prompt：中位数"},
    "cost_group_long_max": {"en": "long prompts: longest", "zh": "长 prompt：最长"},
    "cost_queue_axis": {"en": "queue time ({unit}, log scale)", "zh": "排队时间（{unit}，对数刻度）"},
    "cost_kv_title": {"en": "KV pressure and preemption", "zh": "KV 压力与抢占"},
    "cost_kv_named": {
        "en": "overcommit: {preemptions} preemptions, {recomputed} tokens prefilled again; "
              "TTFT p99 {ttft} vs {ttft_reserve}",
        "zh": "overcommit：{preemptions} 次抢占，{recomputed} 个 token 重新 prefill；TTFT p99 {ttft} 对 {ttft_reserve}"},
    "cost_kv_story": {
        "en": "The jitter trace again, with a KV cache of {blocks} blocks ({tokens} tokens). **Reserving** blocks "
              "for a request's whole output at admission never runs out, but holds memory that is not used yet, so "
              "fewer requests run: TTFT p99 **{ttft_reserve}**. **Overcommitting** admits as soon as the prompt "
              "fits: TTFT p99 falls to **{ttft}**, and when decodes fill the cache the newest request is preempted "
              "and its KV dropped: **{preemptions}** preemptions, and **{recomputed}** tokens prefilled a second "
              "time ({share} of all prefill work). That is the price of admitting more.",
        "zh": "还是抖动那条 trace，KV cache 为 {blocks} 个 block（{tokens} 个 token）。准入时**预留**完整输出所需的 "
              "block 永远不会用尽，但占着尚未用到的内存，于是同时运行的请求更少：TTFT p99 **{ttft_reserve}**。"
              "**超额准入**只要 prompt 装得下就接纳：TTFT p99 降到 **{ttft}**；而当 decode 填满 cache，最新的请求被"
              "抢占、KV 被丢弃：**{preemptions}** 次抢占，**{recomputed}** 个 token 第二次 prefill（占全部 prefill 工作的 "
              "{share}）。这就是多接纳的代价。"},
    "cost_preempted": {"en": "{name}: preemption", "zh": "{name}：抢占"},
    "cost_work_title": {"en": "The scheduler's work every iteration", "zh": "调度器每次迭代的工作"},
    "cost_work_named": {
        "en": "continuous decides {decisions} times (every iteration), static {static_decisions}; "
              "the batch changes before {changed} iterations",
        "zh": "连续批处理决策 {decisions} 次（每次迭代），静态 {static_decisions} 次；{changed} 次迭代前 batch 发生变化"},
    "cost_work_story": {
        "en": "The jitter trace under static and continuous batching, each planned one iteration at a time. "
              "Static batching decides once a batch: **{static_decisions}** times. Continuous batching decides "
              "again every iteration, **{decisions}** times, and its batch changes before **{changed}** of them "
              "(**{share}**); static's changes {static_changed} times. Each change means new batch tensors and "
              "block tables in a real engine, work that happens on the CPU between two forward passes. Planning "
              "one iteration took **{plan} µs** here for continuous and **{static_plan} µs** for static (this "
              "machine's Python, measured when the page first ran; the median of three runs after a warm-up).",
        "zh": "同一条抖动 trace，分别用静态与连续批处理，每次只规划一次迭代。静态批处理每个 batch 决策一次：共 "
              "**{static_decisions}** 次。连续批处理每次迭代都要重新决策，共 **{decisions}** 次，其中 **{changed}** 次"
              "（**{share}**）之前 batch 发生了变化；静态批处理变化 {static_changed} 次。在真实引擎中，每次变化都意味着重建 "
              "batch 张量和 block table，这些工作发生在两次前向计算之间的 CPU 上。在这里规划一次迭代，连续批处理用时 "
              "**{plan} 微秒**，静态 **{static_plan} 微秒**（本机 Python，页面首次运行时测得；预热一次后三次运行的中位数）。"},
    "cost_group_decisions": {"en": "scheduling decisions", "zh": "调度决策"},
    "cost_group_changed": {"en": "iterations after a batch change", "zh": "batch 变化后的迭代"},
    "cost_work_axis": {"en": "count (log scale)", "zh": "次数（对数刻度）"},
    "cost_hidden_title": {"en": "What these pictures still leave out", "zh": "这些图仍然没有画出的东西"},
    "cost_hidden": {
        "en": "- The latency model is linear: a real GPU's iteration time is flat until the batch fills its "
              "compute, then rises; the real-model page measures one.\n"
              "- Planning time is this simulator's Python, not vLLM's; in a real engine the batch's tensors, "
              "sampling and detokenization add CPU time every iteration.\n"
              "- Preemption by recompute is modelled as prefill work again; swapping to host memory costs PCIe "
              "time instead (the trace lab's swap option).",
        "zh": "- 延迟模型是线性的：真实 GPU 的迭代时间在 batch 填满算力之前几乎不变，之后才上升；真实模型页面实际测量了"
              "一个。\n"
              "- 规划时间是本模拟器的 Python，而不是 vLLM 的；真实引擎中，batch 张量、采样和反 tokenize 每次迭代都会"
              "增加 CPU 时间。\n"
              "- 重算式抢占被建模为再做一遍 prefill；换出到主机内存则改为花费 PCIe 时间（Trace 实验室的 swap 选项）。"},

    # Capacity lab (sweeps)
    "nav_capacity": {"en": "Capacity lab", "zh": "容量实验"},
    "sw_title": {"en": "Capacity lab: how much load before the SLO breaks?", "zh": "容量实验：负载多大时 SLO 开始失守？"},
    "sw_intro": {
        "en": "Run the same trace through two to four policies while one parameter moves: the arrival rate, the "
              "token budget, the sequence limit, the chunk size or the KV blocks. **Goodput** (DistServe) counts "
              "only requests that meet every SLO; the **knee** is the largest load a policy takes while at least "
              "the target share of requests still meets it.",
        "zh": "让同一条 trace 在两到四个策略下运行，同时改变一个参数：到达速率、token 预算、序列上限、chunk 大小或 "
              "KV 块数。**Goodput**（DistServe 的定义）只统计满足全部 SLO 的请求；**拐点**是策略在满足目标比例的前提下"
              "能承受的最大负载。"},
    "sw_trace": {"en": "1. The trace", "zh": "1. Trace"},
    "sw_source": {"en": "Trace source", "zh": "Trace 来源"},
    "sw_source_generated": {"en": "generated", "zh": "生成"},
    "sw_source_upload": {"en": "upload a real trace", "zh": "上传真实 trace"},
    "sw_source_lab": {"en": "the trace lab's trace", "zh": "Trace 实验室中的 trace"},
    "sw_generator": {"en": "Generator settings", "zh": "生成器设置"},
    "sw_upload_first": {"en": "Choose a file (Azure, Mooncake, BurstGPT or native CSV/JSON) and press Import.",
                        "zh": "选择文件（Azure、Mooncake、BurstGPT 或原生 CSV/JSON）并点击导入。"},
    "sw_lab_bad": {"en": "The trace lab's table has problems; fix them in the trace lab first:",
                   "zh": "Trace 实验室的表格有问题，请先在 Trace 实验室中修正："},
    "sw_trace_summary": {
        "en": "{n:,} requests arriving over {span:,} ticks ({rate} a tick on average); mean prompt {prompt} and "
              "mean output {output} tokens.",
        "zh": "{n:,} 个请求在 {span:,} 个 tick 内到达（平均每 tick {rate} 个）；平均 prompt {prompt}、平均输出 "
              "{output} 个 token。"},
    "sw_policies": {"en": "2. Policies, budgets and SLOs", "zh": "2. 策略、预算与 SLO"},
    "sw_policies_intro": {
        "en": "One row a policy (two to four), each with its own budgets. 0 means no limit (sequences, KV "
              "blocks) or off (chunked prefill). Continuous-only options (chunks, overcommit) must stay off for "
              "static rows.",
        "zh": "每行一个策略（两到四个），各有自己的预算。0 表示不限（序列数、KV 块）或关闭（chunked prefill）。"
              "仅连续批处理可用的选项（chunk、overcommit）在静态批处理行中必须保持关闭。"},
    "sw_col_label": {"en": "policy", "zh": "策略"},
    "sw_col_batching": {"en": "batching", "zh": "批处理"},
    "sw_col_order": {"en": "order", "zh": "队列顺序"},
    "sw_col_budget": {"en": "budget", "zh": "预算"},
    "sw_col_max_seqs": {"en": "max seqs", "zh": "序列上限"},
    "sw_col_chunk": {"en": "chunk size", "zh": "chunk 大小"},
    "sw_col_kv_blocks": {"en": "KV blocks", "zh": "KV 块数"},
    "sw_col_kv_admission": {"en": "KV admit", "zh": "KV 准入"},
    "sw_col_preempt": {"en": "preempt", "zh": "抢占"},
    "sw_policy_count": {"en": "Give one to {most} policies (rows).", "zh": "请给出 1 到 {most} 个策略（行）。"},
    "sw_policy_label": {"en": "Policy row {row}: give it a name no other row has.",
                        "zh": "策略第 {row} 行：请起一个与其他行不同的名字。"},
    "sw_policy_bad": {"en": "Policy row {row} ({label}): {reason}", "zh": "策略第 {row} 行（{label}）：{reason}"},
    "sw_target": {"en": "Attainment target", "zh": "达标率目标"},
    "sw_target_help": {"en": "The knee is the largest load at which at least this share of requests meets every SLO.",
                       "zh": "拐点是至少这一比例的请求满足全部 SLO 时的最大负载。"},
    "sw_sweep": {"en": "3. The sweep", "zh": "3. 扫描"},
    "sw_parameter": {"en": "Swept parameter", "zh": "扫描参数"},
    "sw_parameter_help": {
        "en": "The arrival rate multiplies the trace's own rate (2 = the same requests arriving twice as fast; "
              "arrivals are rounded down to whole ticks). The other parameters replace every policy's own value.",
        "zh": "到达速率是 trace 自身速率的倍数（2 = 同样的请求以两倍速度到达；到达时间向下取整到 tick）。其他参数会替换"
              "每个策略自己的取值。"},
    "sw_param_rate": {"en": "arrival rate (x the trace's)", "zh": "到达速率（trace 的倍数）"},
    "sw_param_token_budget": {"en": "token budget", "zh": "token 预算"},
    "sw_param_max_seqs": {"en": "max sequences", "zh": "最大序列数"},
    "sw_param_chunk_size": {"en": "chunk size", "zh": "chunk 大小"},
    "sw_param_kv_blocks": {"en": "KV blocks", "zh": "KV 块数"},
    "sw_low": {"en": "from", "zh": "从"},
    "sw_high": {"en": "to", "zh": "到"},
    "sw_points": {"en": "points", "zh": "点数"},
    "sw_bad_range": {"en": "The range cannot be swept: {reason}", "zh": "无法扫描这个范围：{reason}"},
    "sw_low_high": {"en": "'to' must be larger than 'from'.", "zh": "“到”必须大于“从”。"},
    "sw_too_much": {
        "en": "This sweep would simulate {work} requests (points x policies x trace); the web app takes up to "
              "{most}. Use fewer points or requests here, or run `python -m sim sweep` from the command line.",
        "zh": "这次扫描需要模拟 {work} 个请求（点数 x 策略数 x trace 长度）；网页最多 {most} 个。请减少点数或请求数，"
              "或在命令行运行 `python -m sim sweep`。"},
    "sw_run": {"en": "Run the sweep", "zh": "运行扫描"},
    "sw_running": {"en": "Simulating point {done} of {total}...", "zh": "正在模拟第 {done}/{total} 个点……"},
    "sw_press_run": {"en": "Press **Run the sweep**.", "zh": "点击**运行扫描**。"},
    "sw_stale": {"en": "The inputs changed since this sweep ran: press Run the sweep to update it.",
                 "zh": "输入在上次扫描后已改变：点击“运行扫描”更新结果。"},
    "sw_knees": {"en": "Knees", "zh": "拐点"},
    "sw_budget_fitted": {"en": "The policies' token budget is now {budget}, so the largest prompt of this trace fits.",
                         "zh": "策略的 token 预算已设为 {budget}，以容纳这条 trace 中最长的 prompt。"},
    "sw_knee_rate": {
        "en": "- **{policy}** keeps at least {target} of requests within every SLO up to **{value}x** the trace's "
              "arrival rate ({rate} requests a tick).",
        "zh": "- **{policy}** 在到达速率达到 trace 的 **{value} 倍**（每 tick {rate} 个请求）之前，保持至少 {target} "
              "的请求满足全部 SLO。"},
    "sw_knee_capacity": {
        "en": "- **{policy}** keeps at least {target} of requests within every SLO from a {parameter} of "
              "**{value}** upwards.",
        "zh": "- **{policy}** 在{parameter}不小于 **{value}** 时，保持至少 {target} 的请求满足全部 SLO。"},
    "sw_knee_none_load": {"en": "- **{policy}** misses {target} even at the lightest load swept.",
                          "zh": "- **{policy}** 即使在扫描范围内最轻的负载下也达不到 {target}。"},
    "sw_knee_none_capacity": {"en": "- **{policy}** misses {target} even at the largest value swept.",
                              "zh": "- **{policy}** 即使在扫描范围内的最大取值下也达不到 {target}。"},
    "sw_knee_label": {"en": "knee of {policy}: {value}", "zh": "{policy} 的拐点：{value}"},
    "sw_why": {"en": "Why a curve goes against intuition", "zh": "为什么有的曲线与直觉相反"},
    "sw_why_attainment": {
        "en": "**{ahead}** does worse than **{behind}** at {value}: {a} against {b} of requests within every SLO.",
        "zh": "在 {value} 处，**{ahead}** 不如 **{behind}**：满足全部 SLO 的请求为 {a}，对方为 {b}。"},
    "sw_why_throughput": {
        "en": "**{ahead}** makes fewer tokens than **{behind}** at {value}: {a} against {b} tokens a tick.",
        "zh": "在 {value} 处，**{ahead}** 的吞吐低于 **{behind}**：每 tick {a} 个 token，对方为 {b} 个。"},
    "sw_why_starves_ahead": {
        "en": "Long prompts starve under **{policy}**: its slowest 1% of requests have prompts of {slow} tokens on "
              "average (the trace's mean is {mean}). A prompt is admitted only whole, the decoders leave less "
              "budget than a long prompt needs, and shorter prompts are let past it.",
        "zh": "在 **{policy}** 下长 prompt 被饿死：最慢的 1% 请求平均 prompt 为 {slow} 个 token（trace 平均为 "
              "{mean}）。prompt 只能整体准入，decode 请求留下的预算装不下长 prompt，更短的 prompt 便越过它先行。"},
    "sw_why_starves_behind": {
        "en": "**{policy}** gets there by starving long prompts: its slowest 1% of requests have prompts of {slow} "
              "tokens on average (the trace's mean is {mean}); the short ones pass them and still meet the SLO.",
        "zh": "**{policy}** 的成绩是靠饿死长 prompt 换来的：它最慢的 1% 请求平均 prompt 为 {slow} 个 token（trace "
              "平均为 {mean}）；短 prompt 越过它们，仍然满足 SLO。"},
    "sw_why_idle": {
        "en": "{idle} of the token budget of **{policy}** sat idle while requests waited ({other} for **{them}**): "
              "nothing waiting fit in what was left.",
        "zh": "**{policy}** 有 {idle} 的 token 预算在有请求排队时空闲（**{them}** 为 {other}）：排队的请求都装不进剩下的预算。"},
    "sw_why_order": {
        "en": "**{policy}** serves the queue in arrival order, so once the load passes what it can serve every "
              "request waits: TTFT p50 {a} against {b} ticks for **{them}**.",
        "zh": "**{policy}** 按到达顺序服务队列，负载一旦超过其处理能力，每个请求都要等待：TTFT p50 为 {a} 个 tick，"
              "**{them}** 为 {b} 个。"},
    "sw_why_none": {"en": "Every curve here goes the way intuition says: no policy that should do better does worse.",
                    "zh": "这里每条曲线都符合直觉：没有哪个本应更好的策略表现更差。"},
    "sw_default_note": {
        "en": "The default: prompts of 1–8 tokens under a budget of 12 tokens a tick, so the longest prompt fits "
              "beside four decoders. Set the budget to the seed's 8 and a prompt of 8 can start only in a tick in "
              "which nobody decodes: continuous batching then leaves budget idle while long prompts starve, and its "
              "knee falls to static's. The page says so under the charts when it happens.",
        "zh": "默认场景：prompt 为 1–8 个 token，预算为每 tick 12 个 token，最长的 prompt 也能与四个 decode 请求同批。"
              "若把预算设为种子文档的 8，长度为 8 的 prompt 只能在没有任何 decode 的 tick 开始：连续批处理于是在长 prompt "
              "挨饿时空着预算，拐点跌到与静态批处理相同。出现这种情况时，图表下方会说明原因。"},
    "sw_tpot_flat": {
        "en": "TPOT is {value} {unit} at every point: in the tick model a decoding request makes one token a tick. "
              "The cost lesson measures TPOT in milliseconds, where it does move.",
        "zh": "每个点的 TPOT 都是 {value} {unit}：在 tick 模型中，处于 decode 的请求每 tick 产生一个 token。"
              "代价一课以毫秒度量 TPOT，在那里它会变化。"},
    "sw_chart_idle": {"en": "Budget idle while requests waited (% of the token budget)",
                      "zh": "有请求排队时空闲的预算（占 token 预算的 %）"},
    "sw_target_line": {"en": "target {target}", "zh": "目标 {target}"},
    "sw_failed": {"en": "{n} points could not run (they count as missing the SLO):",
                  "zh": "{n} 个点无法运行（按未满足 SLO 计）："},
    "sw_rate_axis": {"en": " (1 = {rate} requests a tick)", "zh": "（1 = 每 tick {rate} 个请求）"},
    "sw_chart_attainment": {"en": "SLO attainment (% of requests meeting every SLO)",
                            "zh": "SLO 达标率（满足全部 SLO 的请求比例）"},
    "sw_chart_goodput": {"en": "Goodput (requests meeting every SLO per tick)",
                         "zh": "Goodput（每 tick 满足全部 SLO 的请求数）"},
    "sw_chart_ttft": {"en": "TTFT: p50 solid, p90 dashed, p99 dotted", "zh": "TTFT：p50 实线，p90 虚线，p99 点线"},
    "sw_chart_tpot": {"en": "TPOT: p50 solid, p90 dashed, p99 dotted", "zh": "TPOT：p50 实线，p90 虚线，p99 点线"},
    "sw_chart_throughput": {"en": "Throughput (output tokens per tick)", "zh": "吞吐（每 tick 输出 token 数）"},
    "sw_per_unit": {"en": "requests / {unit}", "zh": "请求 / {unit}"},
    "sw_tokens_per_unit": {"en": "tokens / {unit}", "zh": "token / {unit}"},
    "sw_table": {"en": "Every point", "zh": "全部数据点"},
    "sw_goodput": {"en": "goodput (req/tick)", "zh": "goodput（请求/tick）"},
    "sw_attainment_pct": {"en": "SLO met %", "zh": "达标率 %"},
    "sw_throughput": {"en": "tokens/tick", "zh": "token/tick"},
    "sw_ttft_col": {"en": "TTFT p{q} ({unit})", "zh": "TTFT p{q}（{unit}）"},
    "sw_idle_pct": {"en": "idle budget %", "zh": "空闲预算 %"},
    "sw_short_rate": {"en": "load (×)", "zh": "负载（倍）"},
    "sw_short_token_budget": {"en": "budget", "zh": "预算"},
    "sw_short_max_seqs": {"en": "max seqs", "zh": "序列上限"},
    "sw_short_chunk_size": {"en": "chunk", "zh": "chunk"},
    "sw_short_kv_blocks": {"en": "KV blocks", "zh": "KV 块数"},
    "sw_default_static": {"en": "static", "zh": "静态"},
    "sw_default_continuous": {"en": "continuous", "zh": "连续"},
    "sw_default_chunked": {"en": "continuous + chunked", "zh": "连续 + 分块 prefill"},
    "sw_error": {"en": "could not run", "zh": "无法运行的原因"},
    "sw_download": {"en": "Download the sweep (CSV)", "zh": "下载扫描结果（CSV）"},
    "dl_prom_tick_ms": {"en": "1 tick = ? ms (for the Prometheus export)", "zh": "1 tick = ? 毫秒（用于 Prometheus 导出）"},
    "dl_prom_tick_help": {"en": "Prometheus and vLLM measure time in seconds; say how long a tick is.",
                          "zh": "Prometheus 和 vLLM 以秒计时；请给出一个 tick 的时长。"},
    "dl_prom_ms": {"en": "Times are in ms; the export writes seconds.", "zh": "时间单位为毫秒；导出时换算为秒。"},
    "dl_prometheus": {"en": "Metrics of {label} (Prometheus, vLLM names)", "zh": "{label} 的指标（Prometheus，vLLM 命名）"},
    "dl_prometheus_help": {
        "en": "The run's metrics in Prometheus text format with vLLM's metric names and histogram buckets "
              "(vllm:time_to_first_token_seconds, ...). Gauges hold the mean over the run; the README maps "
              "each metric and says where the definitions differ.",
        "zh": "本次运行的指标，Prometheus 文本格式，使用 vLLM 的指标名与直方图分桶（vllm:time_to_first_token_seconds 等）。"
              "Gauge 为整个运行期间的时间加权平均；README 给出逐项对照及口径差异。"},
}
