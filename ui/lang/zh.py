"""Every text the app shows, in Chinese: key -> text (str.format fields; the same fields in en.py)."""

TEXTS = {
    # Navigation and sidebar
    "nav_home": "首页",
    "nav_example": "示例推演",
    "nav_lab": "Trace 实验室",
    "nav_guide": "指标指南",
    "presenter_switch": "演示模式",
    "presenter_help": "用于投影：正文、表格和图表字体更大，各页的选项折叠起来（需要时再展开）。",
    "presenter_options": "选项",
    "about_title": "关于",
    "about_text": (
        "**批处理课堂**演示 LLM 服务器如何调度请求：在同一条 "
        "trace、同一组预算下对比静态批处理与连续（iteration "
        "级）批处理。模拟器按设计文档的教学模型以 tick 计 "
        "token-work：它验证的是调度语义和指标口径，而不是 GPU 性能。"),

    # Policies, phases, units
    "policy_static": "静态批处理",
    "policy_continuous": "连续批处理",
    "phase_queued": "排队",
    "phase_prefill": "prefill",
    "phase_decode": "decode",
    "phase_padding": "padding",
    "phase_idle": "空闲预算",
    "unit_tick": "tick",
    "unit_ticks": "tick",
    "unit_tick_one": "tick",
    "with_value": "{value} {unit}",
    "marker_arrival": "到达",
    "marker_completion": "最后一个 token",
    "marker_token": "输出 token",
    "hover_segment": "<b>{name}</b> · {phase}<br>{unit} {start} → {end}<br>{tokens} 个 token",
    "hover_arrival": "<b>%{y}</b> 在 %{x} 到达",
    "hover_completion": "<b>%{y}</b> 在 %{x} 输出最后一个 token",
    "hover_token": "在 %{x} 输出一个 token",
    "hover_work": "tick %{{customdata[0]}} → %{{customdata[1]}}<br>{kind}：%{{y}} token-work",
    "budget_line": "预算 {budget}",
    "budget_title": "token-work · {policy}",
    "axis_token_work": "token-work",
    "axis_requests": "请求数",
    "gantt_merged": "同一阶段的连续片段画成一条",
    "chart_binned": "按每 {width} 一格取平均",
    "kv_binned": "每 {width} 一格取其中最大用量",
    "hover_events_binned": "这一格（{width}）内 %{{customdata:,}} 次<extra>%{{fullData.name}}</extra>",
    "gantt_too_dense": (
        "{title}：这次运行要画 {bars} 条，太多，既看不清也发不到浏览器，所以略去甘特图；上面的图显示了随时间"
        "运行和等待的请求数，下载的 Chrome / Perfetto trace 里有每一段。"),
    "gantt_sampled": "均匀抽样显示 {total} 个请求中的 {shown} 个",
    "load_title": "运行中与等待中的请求 · {title}",
    "load_running": "运行中（占用 batch 槽位）",
    "load_waiting": "等待中（已到达，尚未开始）",

    # Home
    "home_title": "批处理课堂",
    "home_intro": (
        "LLM 服务器把许多请求放进同一个 **batch** 一起处理：每次模型 iteration 为 batch 中的每个请求做一"
        "点工作。先由 **prefill** 读入请求的 prompt，之后每个 **decode** 步骤再生成一个输出 token。\n\n**静"
        "态批处理**要等一组请求凑齐，把所有 prompt padding 到最长的长度，并且整个 batch 要等最长的回答完"
        "成才结束：短请求完成后仍占着槽位空转，新到的请求只能在外面等。**连续批处理**（iteration 级调度）"
        "在每次 iteration 都重新决策：运行中的请求各 decode 一个 token，完成的请求立刻释放槽位，等待中的"
        "请求在剩余预算内被接纳。\n\n下面是设计文档中的三个请求 {requests}（到达时刻、prompt token 数、输出"
        " token 数），预算为每 tick {budget} 个 token-work："),
    "home_caption": "**{policy}**：makespan {makespan} · padding 浪费 {waste} · 吞吐 {throughput} token/tick",
    "home_after": (
        "连续批处理在 tick {arrival} 就接纳了 C：与 A 的 decode 同一 tick，并复用 B 释放的槽位，于是 C 的"
        "首 token 提前 {sooner}，整条 trace 在 tick {end} 而不是 {end_static} 完成。教学模型把每个 "
        "prompt 或 decode token 都算作一个单位的工作；真实的 prefill 与 decode 成本不同，所以这里每 tick "
        "多出的 {more} token（{throughput} 对 {throughput_static}）说明的是调度，而不是 GPU 速度。"),
    "home_pages": "页面",
    "home_link_worked_example": "示例推演：逐 tick 展开设计文档的 trace，并附文字解说",
    "home_link_costs": "代价，以毫秒计：{topics}",
    "home_link_trace_lab": "Trace 实验室：编辑、生成或上传 trace，对比两种策略",
    "home_link_capacity_lab": "容量实验：负载多大时各策略开始违反 SLO（goodput 与拐点）",
    "home_link_metrics_guide": "指标指南：排队时间、TTFT、TPOT、吞吐、goodput 等",
    "home_gantt": "三个请求在静态与连续批处理下，共用一条时间轴",
    "list_sep": "、",

    # Worked example
    "ex_title": "示例推演",
    "ex_lead": (
        "A=(0,4,5)、B=(0,2,2)、C=(3,3,4)（到达时刻、prompt 与输出 token 数）；每 tick 预算 8 个 token-work。"
        "点击 ▶ 播放，或用 ◀ ▶ 逐步前进。"),
    "ex_intro": (
        "图和表显示到时钟所示时刻为止发生的事：时间为 3 时，tick 0、1、2 已经运行。每个 Gantt 图上方是刚运行完的"
        "那个 tick 的解说，下面几行是它背后的规则，只要规则仍在起作用就一直显示。此刻尚未知道的数字显示为 "
        "{pending}；时间单位为 tick，TPOT 为每个 token 的 tick 数。故事由你的浏览器播放：播放、暂停、逐步按钮和"
        "时钟同时移动所有面板，无需询问服务器。"),
    "ex_how": "如何阅读这个故事",
    "ex_play": "▶ 播放",
    "ex_pause": "❚❚ 暂停",
    "ex_start": "回到时间 0",
    "ex_back": "后退一个 tick",
    "ex_forward": "前进一个 tick",
    "ex_speed_one": "每秒 {speed} tick",
    "ex_speed_many": "每秒 {speed} tick",
    "ex_run_title": "{policy} · 时间 {tick}",
    "ex_budget_title": "每 tick 的 token-work · {policy}",
    "ex_table_title": "时间 {tick} 的逐请求指标（tick）",
    "ex_overall_title": "时间 {tick} 的整体指标",
    "short_policy_static": "静态",
    "short_policy_continuous": "连续",
    "short_queue_time": "排队",
    "short_ttft": "TTFT",
    "short_tpot": "TPOT",
    "short_e2e": "端到端",
    "ex_m_makespan": "makespan（tick）",
    "ex_m_throughput": "吞吐（每 tick token 数）",
    "ex_m_padding_waste": "padding 浪费（token-work）",
    "ex_m_utilization": "预算利用率",
    "ex_m_ttft_p50": "TTFT p50（tick）",
    "ex_m_e2e_p50": "端到端延迟 p50（tick）",
    "ex_takeaway_pending": "两种策略都运行结束后才显示总结：点击 ▶ 播放，或逐 tick 前进。",
    "ex_takeaway_run": (
        "{policy}：makespan {makespan}，padding 浪费 {waste} token-work，吞吐{throughput}，{name} 的 TTFT 为 {ttft}。"),
    "ex_rate_one": "每 tick {rate} 个 token",
    "ex_rate_many": "每 tick {rate} 个 token",
    "ex_takeaway_tpot": "所有请求的 TPOT 都是每个 token {tpot} tick。",
    "ex_done": "t={tick}：所有请求完成，运行结束。",
    "ex_costs_link": "这里每个 TPOT 都是 1 个 tick。以毫秒计，连续批处理的代价是什么？→",
    "ex_open_lab": "在 Trace 实验室中打开此 trace",
    "ex_narration_empty": "时间 0：还没有运行任何 tick。点击 ▶ 播放，或逐 tick 前进。",

    # Narration of one tick
    "why_static_wait_one": "{names} 等待：静态批次在其最长的成员完成之前不接纳新请求。",
    "why_static_wait_many": "{names} 等待：静态批次在其最长的成员完成之前不接纳新请求。",
    "why_static_admit_one": "{names} 现在开始：上一个静态批次结束后，新批次才开始。",
    "why_static_admit_many": "{names} 现在开始：上一个静态批次结束后，新批次才开始。",
    "why_static_padding_one": "{names} 以 padding 占着槽位：静态批次中已完成的成员仍占着槽位，直到整个批次结束。",
    "why_static_padding_many": "{names} 以 padding 占着槽位：静态批次中已完成的成员仍占着槽位，直到整个批次结束。",
    "why_continuous_finish_one": "{names} 的槽位在下一轮迭代即可复用。",
    "why_continuous_finish_many": "{names} 的槽位在下一轮迭代即可复用。",
    "why_continuous_admit_one": "{names} 立即加入：连续批处理每轮迭代都接纳新请求，使用 decode 剩下的预算。",
    "why_continuous_admit_many": "{names} 立即加入：连续批处理每轮迭代都接纳新请求，使用 decode 剩下的预算。",
    "why_continuous_wait_one": "{names} 等待：本轮迭代的 token 预算、序列上限或 KV cache 放不下它的 prefill。",
    "why_continuous_wait_many": "{names} 等待：本轮迭代的 token 预算、序列上限或 KV cache 放不下它们的 prefill。",
    "why_static_batch_one": "{names} 单独成为一个批次，直到完成；其他请求无法加入。",
    "why_static_batch_many": "{names} 作为一个批次运行，直到其中最长的成员完成；其他请求无法加入。",
    "why_continuous_all_one": "没有请求在等待：{names} 就是整个批次，新到的请求会立即加入。",
    "why_continuous_all_many": "没有请求在等待：{names} 组成批次，新到的请求会立即加入。",
    "why_idle": "没有请求在运行：预算空闲，直到下一个请求到达。",
    "policy_rule_static": "静态批处理用已到达的请求组成一个批次，一直运行到其中最长的成员完成。",
    "policy_rule_continuous": "连续批处理每轮迭代都重新决定：完成的请求离开，等待的请求在预算内加入。",
    "n_tick": "t={tick}：",
    "n_sep": "；",
    "n_decode_one": "{names} decode 1 个 token",
    "n_decode_many": "{names} 各 decode 1 个 token",
    "n_finish_one": "{names} 输出最后一个 token（在 {tick} 完成）",
    "n_finish_many": "{names} 输出最后一个 token（在 {tick} 完成）",
    "n_admit_one": "{names} 被接纳并 prefill {tokens} 个 token",
    "n_admit_many": "{names} 被接纳并共 prefill {tokens} 个 token",
    "n_prefilling_one": "{names} 继续 batch 的 padded prefill",
    "n_prefilling_many": "{names} 继续 batch 的 padded prefill",
    "n_padding_one": "{names} 已完成，但仍以 padding 占着槽位",
    "n_padding_many": "{names} 已完成，但仍以 padding 占着槽位",
    "n_arrive_one": "{names} 到达并等待",
    "n_arrive_many": "{names} 到达并等待",
    "n_wait_one": "{names} 等待",
    "n_wait_many": "{names} 等待",
    "n_nothing": "没有可运行的请求",
    "n_budget": "{budget} 个预算中 {idle} 个空闲",
    "n_budget_padding": "（{padding} 个花在 padding 上）",

    # Tables
    "col_name": "请求",
    "lab_ab_key": "P1 = {a}，P2 = {b}。",
    "col_policy": "策略",
    "card_throughput": "token/{per}",
    "card_goodput_requests": "goodput",
    "lab_requests_left": "{columns}：见下方“{csv}”。加上它们，表格在 1024 px 宽的屏幕上放不下。",
    "lab_per_request_key": "每个请求两行：P1 = {a}，P2 = {b}。",
    "times_key": "到达、排队、TTFT 与端到端的单位为 {unit}；TPOT 为每个 token 的 {unit}。",
    "col_arrival": "到达",
    "col_prompt": "prompt",
    "col_output": "输出",
    "col_priority": "优先级",
    "col_deadline": "截止时间",
    "col_tenant": "租户",
    "col_cancel_at": "取消时刻",
    "col_text": "文本",
    "col_metric": "指标",
    "col_change": "变化 P2 − P1",
    "col_verdict": "更好？",
    "col_row": "行",
    "col_column": "列",
    "col_problem": "问题",
    "m_queue_time": "排队时间",
    "m_ttft": "TTFT",
    "m_tpot": "TPOT",
    "m_e2e": "端到端延迟",
    "m_completion": "完成时刻",
    "m_makespan": "makespan",
    "m_throughput": "吞吐（token/{per}）",
    "m_request_throughput": "请求/{per}",
    "with_unit": "{label}（{unit}）",
    "per_tick": "tick",
    "per_ms": "毫秒",
    "m_padding_waste": "padding 浪费",
    "m_utilization": "预算利用率",
    "m_goodput": "goodput",
    "m_goodput_requests": "goodput（满足 SLO 的请求数）",
    "m_slo_attainment": "SLO 达成率",
    "m_ttft_p50": "TTFT p50",
    "m_ttft_p90": "TTFT p90",
    "m_ttft_p99": "TTFT p99",
    "m_tpot_p50": "TPOT p50",
    "m_tpot_p90": "TPOT p90",
    "m_tpot_p99": "TPOT p99",
    "m_itl_p50": "token 间隔 p50",
    "m_itl_p90": "token 间隔 p90",
    "m_itl_p99": "token 间隔 p99",
    "m_e2e_p50": "端到端延迟 p50",
    "m_e2e_p90": "端到端延迟 p90",
    "m_e2e_p99": "端到端延迟 p99",
    "m_queue_time_p50": "排队时间 p50",
    "m_queue_time_p90": "排队时间 p90",
    "m_queue_time_p99": "排队时间 p99",

    # What changed
    "wc_faster": "更早完成整条 trace",
    "wc_slower": "更晚完成整条 trace",
    "wc_makespan": "**{b}** 比 **{a}** {verb}：makespan {mb} 对 {ma}（{pct}）。",
    "wc_ttft": "使用 **{b}** 后，TTFT 中位数从 {ta} 变为 {tb}。",
    "wc_unit_tick": "tick",
    "wc_unit_ms": "毫秒",
    "wc_waste": "padding 浪费：**{a}** 为 {wa} token-work，**{b}** 为 {wb} token-work。",
    "wc_goodput": "满足全部 SLO 的请求：**{a}** 为 {ga}/{n}，**{b}** 为 {gb}/{n}。",
    "wc_requests": "使用 **{b}** 后，{total} 个请求中有 {n} 个的端到端延迟更短。",
    "wc_same": "在这条 trace 上两种策略的指标相同。",

    # Trace lab
    "lab_title": "Trace 实验室",
    "lab_intro": (
        "选择预设、生成 trace 或上传真实 trace，在表格中编辑，设置预算，然后在完全相同的 "
        "trace 上对比两种策略。页面底部的链接可以带走当前场景。"),
    "lab_trace": "1 · Trace",
    "tab_presets": "预设",
    "tab_generator": "生成器",
    "tab_upload": "上传",
    "preset_pick": "预设",
    "preset_load": "载入预设",
    "preset_seed": "设计文档示例（A、B、C）",
    "preset_seed_note": "三个请求，预算 8：静态 makespan 11，连续 8。",
    "preset_bursty": "突发到达",
    "preset_bursty_note": (
        "40 个请求成簇到达（gamma 到达过程，burstiness "
        "0.2）：观察突发时队列如何堆积，以及两种策略各自多快把它消化掉。"),
    "preset_long_short": "长 prompt 混在短 prompt 中",
    "preset_long_short_note": (
        "短对话请求加上四个长文档（prompt 12-16，预算 "
        "16）。连续批处理会跳过放不下的请求、先接纳能放进剩余预算的短 prompt，因此长 "
        "prompt 可能要等到 batch 几乎空了才能进入：看看 L 开头各行的排队时间。"),
    "preset_azure_like": "类 Azure 长度分布",
    "preset_azure_like_note": (
        "120 个请求，prompt 与输出长度呈长尾分布，形状仿照 Azure 2023 对话 "
        "trace 并按比例缩小（预算 64，最多 16 个并发）。"),
    "preset_long_prompt": "一个长 prompt 让所有人停顿（分块 prefill）",
    "preset_long_prompt_note": (
        "在延迟模型（毫秒）下，几个对话正在 decode，一个 96 token 的文档在 60 "
        "毫秒到达。策略 1 在一次 iteration 里 prefill 它：每个运行中的对话都要等约 "
        "58 毫秒才得到下一个 token（看 token 间隔 p99）。策略 2 把它分成每块 16 个 "
        "token，与 decode 共享 iteration：最差间隔降到约 21 "
        "毫秒，代价是文档稍晚完成、iteration 稍多。"),
    "preset_kv_thrash": "KV 太小：超额分配与重算 vs 预留",
    "preset_kv_thrash_note": (
        "cache 只有 16 个 block（64 个 token），每个请求的 KV 会增长到 32 个 "
        "token（8 + 25 - 1：最后一个 token 不需要 KV）。策略 1 在接纳时全部预留：一次只跑两个，从不被抢占。策略 2 "
        "超额分配：很多请求同时开始，随后 block 用完，抢占最晚到达的请求，它们要重新 "
        "prefill 整个上下文——看 KV 图上的抢占标记、重算的 token 数和被拉长的 "
        "TPOT。"),
    "preset_vip": "VIP 租户",
    "preset_vip_note": (
        "一波免费用户请求与少量 VIP 请求（优先级 0），最多同时运行 4 个。策略 1 "
        "按到达顺序服务；策略 2 按优先级服务，并允许 VIP 抢占免费请求。对比按租户的表格：VIP 的 "
        "TTFT 大幅下降，免费用户几乎不变。"),
    "preset_user_stop": "用户点击停止",
    "preset_user_stop_note": (
        "每三个用户中有一个在到达 6 个 tick 后停止回答（cancel_at "
        "列）。连续批处理在下一次 iteration 就释放槽位（停止后生成的一个 token "
        "被浪费）；静态批处理则把它当作 padding 一直占到 batch 结束。"),
    "preset_graph_buckets": "graph bucket 为小 batch 补齐",
    "preset_graph_buckets_note": (
        "策略 2 用为 1、2、4、8、16、32 大小捕获的 CUDA graph 运行纯 decode "
        "的 iteration：5 个请求的 batch 按 8 "
        "运行。预算线之上的黄色部分就是这些白白计算的 padding 槽位。"),
    "preset_speculation": "60% 接受率的投机解码",
    "preset_speculation_note": (
        "策略 2 每步起草 3 个 token，目标模型以 0.6 的概率接受每一个：每步花 4 个 "
        "token-work，但提交 1 到 4 个 token，因此回答用更少的 iteration "
        "完成（看 Gantt 中的多 token 步），同时预算图被更快填满。"),
    "gen_n": "请求数",
    "gen_n_help": "要生成的请求个数。",
    "gen_rate": "每 tick 到达的请求数",
    "gen_rate_help": "每 tick 平均到达的请求数。",
    "gen_burstiness": "突发度（burstiness）",
    "gen_burstiness_help": (
        "到达间隔 gamma 分布的形状参数：1 为 Poisson，小于 1 更突发，大于 1 "
        "更均匀（与 vLLM benchmark 相同）。"),
    "gen_prompt": "prompt 长度",
    "gen_output": "输出长度",
    "dist_uniform": "均匀分布",
    "dist_fixed": "固定值",
    "dist_lognormal": "对数正态（长尾）",
    "dist_value": "token 数",
    "dist_low": "最小",
    "dist_high": "最大",
    "dist_median": "中位数",
    "dist_sigma": "sigma（离散度）",
    "gen_seed": "随机种子",
    "gen_seed_help": "相同的种子和参数总是生成相同的 trace。",
    "gen_make": "生成",
    "gen_bad": "无法生成：{reason}",
    "up_file": "trace 文件",
    "up_help": "原生 CSV/JSON、Azure LLM inference CSV、Mooncake JSONL 或 BurstGPT CSV，最大 {mb} MB。",
    "up_format": "格式",
    "fmt_auto": "根据表头自动识别",
    "fmt_native": "原生（name、arrival、prompt、output）",
    "fmt_azure": "Azure LLM inference",
    "fmt_mooncake": "Mooncake JSONL",
    "fmt_burstgpt": "BurstGPT",
    "up_ms_per_tick": "每 tick 毫秒数",
    "up_token_scale": "token 缩放系数",
    "up_limit": "最多读取请求数",
    "up_start_s": "时间窗起点（秒）",
    "up_end_s": "时间窗终点（秒，0 表示到末尾）",
    "up_end_help": "相对 trace 第一个请求的秒数。",
    "up_import": "导入",
    "up_too_big": "文件超过 {mb} MB。请先裁剪，或用 python -m sim run 在命令行运行。",
    "up_bad": "文件无法导入：",
    "up_report": "导入报告：{report}",
    "help_name": "请求的唯一名称。",
    "help_arrival": "请求到达的 tick（不小于 0）。",
    "help_prompt": "需要 prefill 的 prompt token 数（至少 1）。",
    "help_output": "需要 decode 的输出 token 数（至少 1）。",
    "lab_bad_rows": "有 {n} 行需要修正后才能运行：",
    "lab_sorted": "这些行没有按到达时间排序；模拟会按到达时间排序后使用。",
    "lab_too_many": "{n:,} 个请求超过了交互运行的上限 {limit:,}；完整 trace 请用 python -m sim run 运行。",
    "lab_count": "{n} 个请求",
    "dl_trace_csv": "下载 trace（CSV）",
    "dl_trace_json": "下载 trace（JSON）",
    "dl_typed_csv": "下载当前输入内容（CSV）",
    "lab_budgets": "2 · 预算与策略",
    "cfg_budget": "每次迭代的 token 预算",
    "cfg_budget_help": "一次迭代（以 tick 计时即一个 tick）可完成的 token-work：prefill token + decode token + padding 槽位。",
    "cfg_max_seqs": "最大并发序列数（0 表示不限）",
    "cfg_max_seqs_help": "一次 iteration 的 batch 中最多的请求数。",
    "cfg_first_token": "首个输出 token",
    "cfg_first_token_help": (
        "教学模式：prefill tick 不输出 token，首 token 来自第一个 "
        "decode tick。引擎模式：prefill iteration 直接采样出首 "
        "token（与 vLLM 相同）。"),
    "first_decode": "来自首次 decode（教学）",
    "first_prefill": "来自 prefill（引擎，vLLM）",
    "cfg_slo_ttft": "SLO：TTFT 上限（{unit}，0 表示不设）",
    "cfg_slo_tpot": "SLO：TPOT 上限（{unit}，0 表示不设）",
    "cfg_slo_e2e": "SLO：端到端延迟上限（{unit}，0 表示不设）",
    "cfg_slo_help": "goodput 统计满足你设置的全部 SLO 的请求。",
    "cfg_policy_a": "策略 1",
    "cfg_policy_b": "策略 2",
    "cfg_bad": "“{field}”：{reason}",
    "lab_over_budget": "以下 prompt 大于 token 预算，永远无法被接纳（没有 chunked prefill 时）。请提高预算或缩短它们：",
    "lab_results": "3 · 结果",
    "lab_run": "运行 ▶",
    "lab_running": "正在模拟两种策略…",
    "run_stopped": (
        "{policy} 的运行在计算 {seconds} 秒后被停止：此时模拟到 {time}，{total} 个请求中完成了 {done} 个。这台服务器由大家共用，"
        "每次运行在这里最多计算 {seconds} 秒。相同的迭代能合并时运行很快；而投机解码、MoE 路由、读得慢的流式客户端、"
        "长 prompt 的小 prefill 分块都只能一轮一轮地规划，这条 trace 产生的这类迭代太多了。请缩短最长的请求或缩小 "
        "trace，或者下载 trace 用 `python -m sim run` 运行（命令行没有限制）。你的输入都保留着。"),
    "run_busy": (
        "{policy} 的运行在等待 {seconds} 秒后被停止：服务器正忙于全班的请求，这次运行计算了 {computed} 秒"
        "（每次运行最多可计算 {limit} 秒）。此时模拟到 {time}，{total} 个请求中完成了 {done} 个。请按“运行”重试，"
        "或缩小 trace、缩短最长的请求。你的输入都保留着。"),
    "run_busy_waits": "这组输入上一次运行时服务器正忙于全班的请求，运行被停止，所以页面每次变化时不会自动重试。请按“运行”重试。你的输入都保留着。",
    "lab_stale": "自上次运行后 trace 或预算已改变：按“运行”更新结果。",
    "lab_press_run": "按“运行”开始模拟这条 trace。",
    "lab_fix_first": "请先修正上面的问题。",
    "card_help": "策略 2 的数值；箭头表示相对策略 1（{a}）的变化，绿色表示更好。",
    "lab_overall": "整体指标：策略 1 对比策略 2",
    "lab_per_request": "逐请求指标",
    "dl_requests_csv": "逐请求指标（CSV）",
    "dl_overall_csv": "整体指标（CSV）",
    "dl_schedule_json": "调度结果（JSON）",
    "dl_chrome": "Chrome / Perfetto trace",
    "dl_chrome_help": "在 ui.perfetto.dev 打开：每个请求一条轨道，1 tick 显示为 1 ms。",
    "dl_schedule_too_large": (
        "调度结果（JSON）：这两次运行共产出 {count} 个 token，调度结果要记下每个的产出时间，超过页面下载能写入的 {limit} 个。请下载 trace（CSV），"
        "以相同设置用 `python -m sim run --trace trace.csv --json` 运行，它会写出全部时间点。"),
    "dl_chrome_too_large": (
        "Chrome / Perfetto trace：这两次运行有 {count} 个事件，超过页面下载能写入的 {limit} 个。"
        "缩短 trace 或请求即可生成。"),
    "link_title": "分享此场景（链接）",
    "link_too_large": "这条 trace 太大，无法放进链接：请改为分享下载的 trace 文件。",
    "link_loaded": "已从链接载入场景。",
    "link_bad": "无法打开此链接（{reason}）。实验室显示默认场景。",
    "link_dismiss": "知道了",
    "link_err_too_long": "链接过长",
    "link_err_not_a_link": "这不是场景链接，或链接被截断、修改",
    "link_err_bad_version": "链接来自其他版本的应用",
    "link_err_bad_trace": "其中的 trace 无效",
    "link_err_bad_config": "其中的预算无效",
    "link_err_bad_policy": "其中包含未知策略",

    # What a real scheduler also decides (issue: scheduler realism)
    "phase_stalled": "停顿",
    "phase_preempted": "被抢占",
    "phase_swapped": "已换出",
    "phase_swapping": "换入中",
    "phase_graph_padding": "graph padding",
    "unit_ms": "毫秒",
    "event_preempt": "被抢占（重算）",
    "event_swap_out": "换出",
    "event_swap_in": "换入",
    "event_cancel": "取消",
    "event_reject": "拒绝",
    "hover_event_preempt": "<b>%{y}</b> 在 %{x} 被抢占：丢弃其 KV，之后重新 prefill",
    "hover_event_swap_out": "<b>%{y}</b> 在 %{x} 被换出到主机内存",
    "hover_event_swap_in": "<b>%{y}</b> 在 %{x} 开始换回",
    "hover_event_cancel": "<b>%{y}</b>：用户在 %{x} 停止了它",
    "hover_event_reject": "<b>%{y}</b> 在 %{x} 被拒绝：KV cache 永远放不下它",
    "reason_finished": "完成",
    "reason_cancelled": "已取消",
    "reason_rejected": "被拒绝",
    "kv_title": "KV block 占用 · {policy}",
    "kv_blocks": "占用的 block",
    "kv_total": "已用 block",
    "kv_capacity": "cache：{blocks} 个 block",
    "hover_kv": "<b>{name}</b>：{blocks} 个 block<br>{start} → {end}",
    "axis_blocks": "KV block",
    "m_finished": "完成的请求",
    "m_cancelled": "取消的请求",
    "m_rejected": "被拒绝的请求",
    "m_preemptions": "抢占次数",
    "m_recomputed_tokens": "重算的 token",
    "m_swapped_blocks": "换出的 block",
    "m_wasted_tokens": "生成但未送达的 token",
    "m_wasted": "浪费的 token",
    "m_kv_peak": "KV block 峰值",
    "m_kv_mean": "KV block 平均",
    "m_graph_padding": "CUDA graph padding 槽位",
    "m_spec_accepted": "被接受的草稿 token",
    "m_finish_reason": "结束方式",
    "col_requests": "请求数",
    "col_finished": "完成",
    "col_cancelled": "取消",
    "col_rejected": "拒绝",
    "col_goodput": "满足 SLO",
    "col_tokens": "送达 token",
    "col_ttft_p50": "TTFT p50",
    "col_ttft_p90": "TTFT p90",
    "col_tpot_p50": "TPOT p50",
    "col_e2e_p50": "端到端 p50",
    "col_e2e_p90": "端到端 p90",
    "lab_per_tenant": "按租户",
    "lab_per_priority": "按优先级",
    "lab_rejected": "有 {n} 个请求永远放不进 KV cache，已被拒绝：{names}。",
    "wc_tpot": "使用 **{b}** 后，TPOT p90 从每 token {ta} 变为 {tb}。",
    "wc_preemptions": "抢占：**{a}** {pa} 次（重算 {ra} 个 token），**{b}** {pb} 次（重算 {rb} 个）。",
    "cfg_hardware": "KV cache 与成本模型（两个策略相同）",
    "cfg_kv_blocks": "KV block 数（0 为不限）",
    "cfg_kv_blocks_help": "分页 KV cache 的大小。持有 n 个 token 的请求需要 ceil(n / block 大小) 个 block。",
    "cfg_block_size": "每个 block 的 token 数",
    "cfg_block_size_help": "vLLM 默认为 16；课堂上的小例子适合用小 block。",
    "cfg_swap_cost": "换入耗时",
    "cfg_swap_cost_help": "被换出的请求把 block 从主机内存换回所需的时间。",
    "cfg_cost": "成本模型",
    "cfg_cost_help": (
        "Tick：每次 iteration 持续一个 tick（设计文档的教学模型）。线性：一次 "
        "iteration 耗时 c0 + c_prefill·prefill token + "
        "c_decode·decode 序列 + c_attn·读取的上下文（毫秒）；此时到达时间按毫秒"
        "解释。实测 profile：真实引擎在本机上、在一组 batch 形状上测得的 iteration 耗时"
        "（python -m gpu_demo profile）：按本机实际服务的方式运行。"),
    "cost_ticks": "tick（token-work）",
    "cost_linear": "线性延迟（毫秒）",
    "cost_profile": "实测 profile（毫秒）",
    "cost_roofline": "真实 GPU（毫秒）",
    "cost_used_roofline": "以下结果使用真实 GPU 的 roofline 模型，{model} 运行在 {tp} 块 {gpu} 上（{dtype}）：时间单位为毫秒。",
    "cfg_gpu": "GPU",
    "cfg_gpu_help": "一块真实的加速卡，数据来自其规格书：稠密峰值 FLOP/s、HBM 容量与带宽、GPU 之间的互联带宽。",
    "cfg_model": "模型",
    "cfg_model_help": "真实模型的公开配置：层数、隐藏维度、注意力头、KV 头、MLP、词表（以及专家）。",
    "cfg_tp": "张量并行（GPU 数）",
    "cfg_tp_help": "一个引擎跨越的 GPU 数：每块持有 1/tp 的权重、计算每个矩阵的 1/tp；每层两次 all-reduce 把它们连起来。",
    "cfg_precision": "精度",
    "cfg_precision_help": "权重与 KV cache 用 bf16（2 字节）或 fp8（1 字节，GPU 有 fp8 峰值时按它计算）。",
    "precision_bf16": "bf16",
    "precision_fp8": "fp8",
    "cfg_gpu_memory_utilization": "GPU 显存使用比例",
    "roofline_about": (
        "{gpu}：{tflops} TFLOP/s（稠密，当前精度），HBM {bw} GB/s，{memory} GB。{model}：{params} 十亿个权重，"
        "{tp} 块 GPU 每块存 {weights} GB。一次迭代的时间取两者中较慢的一个：FLOPs 按峰值的 {compute} 计，"
        "搬运的字节（权重一次、KV 读与写）按带宽的 {memory_eff} 计；再加上 GPU 之间的 all-reduce。"
        "它不计内核启动开销和较慢的注意力内核：真实引擎更慢，小批次时差得最多。"),
    "roofline_no_room": "{model} 放不进 {tp} × {gpu} 并留出 KV cache 的空间：请增大张量并行。",
    "roofline_kv_auto": "按 GPU 显存设定 KV cache：{blocks} 个块，每块 {block} 个 token",
    "nav_planner": "规划集群",
    "pl_title": "规划集群：这条 trace 需要多少块 GPU？",
    "pl_intro": (
        "选一个真实模型和可以购买的 GPU。对每种 GPU 和张量并行宽度，规划器找出守住 SLO 所需的最少副本数：它在每个集群上"
        "模拟整条 trace，每次迭代的时间取自该 GPU 的 **roofline**（FLOPs 与搬运字节中较慢的一个，数据来自规格书），"
        "每个副本的 KV cache 按权重剩下的显存计算。然后给出最便宜的答案和 **Pareto 前沿**：成本和 goodput 两方面都"
        "没有被其他集群同时超过的那些。"),
    "pl_trace": "1 · Trace",
    "pl_source": "请求",
    "pl_source_generated": "生成（泊松到达）",
    "pl_source_lab": "Trace 实验室的表格（tick 按毫秒读）",
    "pl_requests": "请求数",
    "pl_rate": "到达率（请求/秒）",
    "pl_prompt_0": "最短 prompt（token）",
    "pl_prompt_1": "最长 prompt（token）",
    "pl_output_0": "最短输出（token）",
    "pl_output_1": "最长输出（token）",
    "pl_lengths_order": "最短长度大于最长长度：长度在两者之间均匀抽取。",
    "pl_trace_summary": "{n} 个请求，跨 {span} 秒；平均 prompt {prompt} 个 token，平均输出 {output} 个 token。",
    "pl_fleet": "2 · 模型与要尝试的 GPU",
    "pl_pick": "选择一个或多个",
    "pl_gpus_label": "要尝试的 GPU",
    "pl_replicas": "要搜索的副本数（每个是一份引擎拷贝）",
    "pl_priced": "按小时计价",
    "pl_priced_help": "关闭：成本按 GPU 个数计。打开：成本 = GPU 数 × 你输入的每 GPU 小时价格。",
    "pl_price": "{gpu}（美元/GPU 小时）",
    "pl_slo": "3 · SLO",
    "pl_no_gpu": "请至少选择一种 GPU。",
    "pl_no_tp": "请至少选择一种张量并行宽度。",
    "pl_run": "规划",
    "pl_stale": "输入在上次规划后已改变：按「规划」更新结果。",
    "pl_running": "正在模拟集群：已完成 {n} 个…",
    "pl_press_run": "按「规划」开始搜索。",
    "pl_bad": "无法规划：{reason}",
    "pl_answer_title": "答案",
    "pl_none": "尝试过的集群都无法让 {target} 的请求满足 SLO：试试更多副本、更宽的张量并行或更快的 GPU。",
    "pl_answer": (
        "**满足 SLO 的最便宜方案：{fleet}**{cost}。"
        "{share} 的请求满足 SLO；goodput 为每秒 {goodput} 个请求；TTFT p90 {ttft} 毫秒，TPOT p90 {tpot} 毫秒。"),
    "pl_cheaper": "试过的更便宜的集群中最好的是 {fleet}，只有 {share} 满足 SLO。",
    "pl_costing": "，{cost}",
    "pl_dollars": "${value}/小时",
    "pl_gpus": "{n} 块 GPU",
    "pl_gpu": "{n} 块 GPU",
    "pl_budget": "每次迭代的 token 预算",
    "pl_legend": "{gpu}，{keeps}",
    "pl_legend_split": " 拆分",
    "pl_keeps": "守住 SLO",
    "pl_misses": "未守住",
    "pl_point": "{fleet}：{share} 满足 SLO",
    "pl_front": "Pareto 前沿",
    "pl_cheapest": "满足 SLO 的最便宜方案",
    "pl_chart": "模拟过的每个集群：成本与 goodput",
    "pl_cost_axis_dollars": "成本（美元/小时）",
    "pl_cost_axis_gpus": "成本（GPU 数）",
    "pl_goodput_axis": "goodput（每秒满足 SLO 的请求数）",
    "pl_chart_caption": (
        "实心点达到 SLO 目标，空心点未达到；菱形为预填充与解码拆分。虚线是 Pareto 前沿：沿着它向右，是用钱换 goodput；在它下方的点总会被前沿上"
        "的某个点超过。"),
    "pl_unfit": "{family} 无法运行：{why}",
    "pl_col_fleet": "集群",
    "pl_fleet_cell": "{fleet}：{gpus}",
    "pl_fleet_engines": "{replicas} × {gpu} (TP {tp})",
    "pl_fleet_split": "{replicas} × ({split}) {gpu} (TP {tp})",
    "pl_splits_none": "不试：只试并排的引擎",
    "pl_splits": "要尝试的预填充:解码拆分",
    "pl_splits_help": (
        "除了并排的引擎，还尝试 DistServe 式的拆分集群：每一份拷贝是 P 个预填充引擎加 D 个解码引擎（1:2 即一个预填充配两个"
        "解码），首个 token 由预填充产生，KV block 经 GPU 互联传输。此时副本数按拷贝计。"),
    "pl_col_cost": "成本",
    "pl_col_attainment": "满足 SLO",
    "pl_col_goodput": "goodput（/秒）",
    "pl_col_p90": "p90 TTFT / TPOT (ms)",
    "pl_download": "下载所有集群（CSV）",
    "pl_model_caption": "{params} 十亿个权重，{layers} 层，每个 token 的 KV cache 为 {kv} KiB（bf16）。",
    "pl_honest": (
        "可信度：roofline 给出的是时间的下限。真实引擎还有内核启动开销、较慢的注意力内核和小批次的低效，所以真实集群需要"
        "同样多或更多的 GPU。与 Vidur 在 A100 上为 Llama-2-70B 实测的数据相比，roofline 在 prefill 和混合批次上误差在 "
        "30% 以内，在大的纯解码批次上最多快 45%（见 README 的「A real GPU」一节）。"),
    "cost_profile_about": (
        "随应用发布的 profile：小模型的引擎在 {device}（{dtype}，{threads} 个线程）上、"
        "在 {shapes} 种 batch 形状上计时；在未参与拟合的形状上平均误差 {held_out}%，"
        "同一形状多次计时的离散度为 {spread}%。"),
    "cost_profile_about_own": (
        "这台机器自己的 profile：小模型的引擎在本机 {device}（{dtype}，{threads} 个线程）上、"
        "在 {shapes} 种 batch 形状上计时；在未参与拟合的形状上平均误差 {held_out}%，"
        "同一形状多次计时的离散度为 {spread}%。"),
    "cost_profile_formula": (
        "一次 iteration 耗时 {c0} 毫秒 + {c_token} 毫秒 × token 行数 + {c_seq} 毫秒 × 序列数 + "
        "{c_key} 毫秒 ×（序列数 × 最长 KV 跨度）+ {c_cell} 毫秒 ×（序列数 × 最长 chunk × "
        "最长 KV 跨度）：即引擎打包的 batch，按最长 chunk 和上下文补齐。"),
    "cost_profile_missing": "{path} 处没有 cost profile：请用 python -m gpu_demo profile 生成。",
    "cfg_cost_preset": "系数预设",
    "cost_preset_small_gpu": "小型 GPU",
    "cost_preset_big_gpu": "大型 GPU",
    "cost_preset_cpu_tiny_model": "CPU 上的小模型",
    "cfg_c0": "c0（毫秒）",
    "cfg_c_prefill": "c_prefill（毫秒/token）",
    "cfg_c_decode": "c_decode（毫秒/序列）",
    "cfg_c_attn": "c_attn（毫秒/上下文 token）",
    "cfg_c0_help": "每次 iteration 的固定开销：kernel 启动、调度等。",
    "cfg_c_prefill_help": "每个 prefill 的 prompt token 的开销。",
    "cfg_c_decode_help": "每个 decode 序列（包括 padding 槽位）的开销。",
    "cfg_c_attn_help": "attention 每读取一个 KV token 的开销：上下文越长 decode 越慢。",
    "cost_linear_note": (
        "prefill 与 decode token 的成本不同，因此该模型下的结果以毫秒计，与 "
        "token-work 的图景不同：每个图表都会说明使用的是哪种模型。"),
    "cost_used_linear": "以下结果使用线性延迟模型：时间单位为毫秒。",
    "opt_title": "调度选项",
    "opt_changed": "已修改的选项：{summary}",
    "opt_order": "队列顺序",
    "opt_order_help": "预算、槽位和 KV 空间腾出时先接纳哪个等待中的请求。“FCFS，跳过放不下的”是设计文档中的循环。",
    "opt_order_fcfs_skip": "FCFS，跳过放不下的",
    "opt_order_fcfs": "FCFS，队头阻塞",
    "opt_order_priority": "优先级（值小者优先）",
    "opt_order_sjf": "最短作业优先",
    "opt_order_edf": "最早截止优先",
    "opt_order_aging": "带老化的优先级",
    "opt_sjf_key": "作业长度依据",
    "opt_sjf_key_prompt": "prompt 长度",
    "opt_sjf_key_output": "已知的输出长度",
    "opt_aging_rate": "老化速率（每等待一个 tick 提升的优先级）",
    "opt_aging_rate_help": "等待中的请求每单位时间优先级值降低这么多，因此不会永远等待。",
    "opt_preemptive_priority": "高优先级可以抢占",
    "opt_preemptive_priority_help": (
        "当最优先的等待请求没有槽位或 KV 空间时，抢占优先级更低的运行中请求（以重算方式）。"),
    "opt_tenant_quotas": "租户配额（租户=预算份额）",
    "opt_tenant_quotas_help": (
        "例如 vip=0.75, free=0.25：当有其他请求运行时，租户在一次 "
        "iteration 中的 token-work 不超过其份额。"),
    "opt_timeout": "超时（0 表示不设）",
    "opt_timeout_help": "请求到达后超过这么久仍未完成就取消（cancel_at 列可以取消单个请求）。",
    "opt_chunk_size": "分块 prefill：每块 token 数（0 表示关闭）",
    "opt_chunk_size_help": (
        "Sarathi 风格：长 prompt 分多次 iteration 分块 prefill，与 "
        "decode 共享 iteration；超过预算的 prompt 也能被调度。"),
    "opt_mixing": "prefill 与 decode 的混合",
    "opt_mixing_help": (
        "decode 优先：先 decode，剩余预算再 prefill。prefill 优先：有 "
        "prefill 工作的 iteration 不做 decode，运行中的请求会停顿。"),
    "opt_mixing_decode_first": "decode 优先，混合",
    "opt_mixing_prefill_first": "prefill 优先，不混合",
    "opt_kv_admission": "KV 准入",
    "opt_kv_admission_help": (
        "预留：接纳时为 prompt 和全部输出预留 block（不会抢占）。超额分配：接纳时分配整个 prompt 的 "
        "block，之后随 token 增长分配，不够时抢占。只看首块：prompt 的每个 chunk 运行时才分配 block，"
        "接纳只需首个 chunk 的 block 空闲（vLLM 0.33 之前，或关闭 scheduler_reserve_full_isl）。"),
    "opt_kv_admission_reserve": "预留 prompt + 输出",
    "opt_kv_admission_overcommit": "超额分配，按需增长",
    "opt_kv_admission_chunk": "只需首个 chunk，逐块分配",
    "opt_preempt": "block 不够时",
    "opt_preempt_help": (
        "重算：丢弃受害者的 KV，之后重新 prefill prompt + 已生成 "
        "token。换出：把它的 block 移到主机内存，之后再换回。"),
    "opt_preempt_recompute": "抢占并重算",
    "opt_preempt_swap": "抢占并换出",
    "opt_victim": "受害者",
    "opt_victim_latest": "最晚到达的",
    "opt_victim_lowest_priority": "优先级最低的",
    "opt_graph_buckets": "CUDA graph batch 大小（空表示 eager）",
    "opt_graph_buckets_help": (
        "已捕获的 decode batch 大小，例如 1, 2, 4, 8, 16, 32：纯 "
        "decode 的 batch 补齐到下一个大小，超过最大值则 eager 运行。"),
    "opt_spec_tokens": "草稿 token 数 k",
    "opt_spec_tokens_help": "投机解码：每步验证 k 个草稿 token（k + 1 个 token-work），提交 1 到 k + 1 个 token。",
    "opt_spec_accept": "接受率",
    "opt_seed": "种子",
    "opt_short_order": "顺序 {value}",
    "opt_short_sjf_key": "按 {value}",
    "opt_short_aging_rate": "老化 {value}",
    "opt_short_preemptive_priority": "可抢占",
    "opt_short_tenant_quotas": "配额 {value}",
    "opt_short_chunk_size": "分块 {value}",
    "opt_short_mixing": "{value}",
    "opt_short_kv_admission": "KV {value}",
    "opt_short_preempt": "{value}",
    "opt_short_victim": "受害者 {value}",
    "opt_short_timeout": "超时 {value}",
    "opt_short_graph_buckets": "graph {value}",
    "opt_short_spec_tokens": "投机 {value}",
    "opt_short_spec_accept": "接受率 {value}",
    "opt_short_seed": "种子 {value}",

    # Real model
    "nav_real": "真实模型",
    "home_link_real_model": "真实模型：用同一套调度器服务一个小 Transformer，并实测",
    "rm_title": "真实模型",
    "rm_intro": (
        "一个字节级 GPT，{params:,} 个参数，在 Python 标准库源码上训练（验证损失 "
        "{loss} nats/byte），带分页 KV cache。驱动它的正是模拟器里的同一批调度器"
        "类：每次 iteration 都是对所有被调度 token "
        "的**一次批量前向**（prefill 分块与 decode "
        "打包在一起），时间线记录实测的毫秒数。贪心解码：每个请求恰好生成其输出 token 数。"),
    "rm_device": "设备",
    "rm_device_help": "服务器有 GPU 时用 CUDA，否则用 CPU。",
    "rm_dtype": "精度",
    "rm_dtype_help": "在 float64 下，每种策略的输出都与单独生成每个请求的结果逐 token 相同。",
    "rm_arrivals": "到达时间单位",
    "rm_arrivals_tick": "iteration（与模拟器相同的调度）",
    "rm_arrivals_ms": "真实时间的毫秒",
    "rm_arrivals_help": (
        "iteration：到达时间为 3 的请求在第 4 次 iteration "
        "加入，与模拟器一致。毫秒：经过相应时间后才加入。"),
    "rm_no_model": "无法加载模型：{reason}",
    "rm_trace": "1 · 请求",
    "rm_source": "请求来源",
    "rm_source_mixed": "长度混合",
    "rm_source_short_chats": "短对话",
    "rm_source_long_outputs": "长回答",
    "rm_source_lab": "实验室的 trace",
    "rm_prompt_seed": "prompt 种子",
    "rm_prompt_seed_help": "prompt 取自 `text` 列，或用该种子从真实 Python 源码中截取与请求 prompt 长度相同的片段。",
    "rm_prompt_text": "prompt 文本",
    "rm_bad_trace": "实验室的 trace 无法在这里运行：",
    "rm_too_many": (
        "实验室的 trace 有 {n} 个请求；共享模型上的一次运行最多 {limit} "
        "个（运行期间其他用户需要等待）。更大的 trace 请用 `python -m "
        "gpu_demo run`。"),
    "rm_scaled": "prompt 与输出长度已按比例缩小，使每个请求都能放进模型 {context} 字节的上下文。",
    "rm_run": "在模型上运行 ▶",
    "rm_stop": "停止",
    "rm_stop_help": "停止运行（丢弃未完成的结果）。",
    "rm_waiting": "等待模型：另一个运行正在使用它…",
    "rm_streaming": "{name}（生成中）：",
    "rm_running": "正在模型上运行{label}…",
    "rm_cannot_run": "无法运行：{reason}",
    "rm_press_run": "按“运行”，用模型在策略 1 和策略 2 下服务这些请求。",
    "rm_measured_note": "在 {device}（{dtype}）上实测：时间为真实毫秒。",
    "rm_tokens_per_s": "token/秒 · {label}",
    "rm_overhead": "iteration 时间的 {share} 花在模型之外（调度、组 batch）。",
    "rm_prediction": "模拟器的预测",
    "rm_prediction_intro": (
        "在这台机器的第一次运行之前，引擎的 iteration 已在一组 batch 形状上计时，并据此拟合出成本模型"
        "（python -m gpu_demo profile，与 Vidur 先 profile 再模拟的方法相同）。每次运行之前，又把其中几个形状"
        "重新计时：机器此刻可能更忙，profile 的时间按此比例缩放。模拟器再用这个 profile、"
        "在相同策略下服务相同的请求：它从未见过本次运行，所以下面的误差就是模拟图景的偏差。"),
    "rm_profiling": "正在为这台机器做一次 profile（约 10 秒）：逐个计时一组 batch 形状并拟合成本模型。"
                    "结果会保留，之后的运行立即开始……",
    "rm_profiled_now": (
        "这台机器还没有 profile，因此在这些运行之前先做了一次（{seconds} 秒），保存在 `{path}`："
        "之后的预测都用它。这里的预测不会使用其他机器的 profile。"),
    "rm_calibration": (
        "{label}：运行之前，profile 中的 {shapes} 个形状以其 profile 时间的 **{scale} 倍** 运行"
        "（校准用时 {seconds} 秒）；预测的时间乘以 {scale}。"),
    "rm_void": (
        "{label} 的对比无效：本次运行的 iteration 总耗时与校准后的 profile 对这些形状给出的时间相差 {drift}，"
        "超出 ±{limit}。运行期间机器的速度变了（其他会话，或与服务器同机的浏览器），运行前做出的预测都不可能成立，"
        "因此不画预测图。请在机器较空闲时重跑。"),
    "rm_threads": "torch 线程数在每次运行前选定：{runs}（共 {cores} 个核，最近一分钟内最多 {busy} 个被其他工作"
                  "占用；与别人共用一个核的线程会拖住其他线程）。",
    "rm_threads_run": "{label} 用 {threads} 个",
    "rm_gantt_measured": "{title}：实测",
    "rm_gantt_predicted": "{title}：模拟器预测",
    "rm_iteration_error": (
        "{label}：每次 iteration 的实测时间与 profile 对该形状的预测相差 {stray}%（中位数）；"
        "其余误差来自这些偏差在整个运行中的累积。"),
    "rm_measured": "实测",
    "rm_predicted": "预测",
    "rm_error": "误差",
    "rm_error_void": "误差（无效）",
    "rm_outputs": "模型生成的内容（策略 2）",

    # Input problems (the codes of sim.trace.trace.MESSAGES)
    "prob_empty": "为空",
    "prob_no_prompt": "为空，可以代替它的 text 也为空",
    "prob_not_integer": "必须是整数，实际为 {value}",
    "prob_not_rate": "必须是大于 0 的数（每个时间单位读取的 token 数），实际为 {value}",
    "prob_bad_hash_ids": "必须是 >= 0 的整数（前缀块哈希，如 Mooncake 的 hash_ids），实际为 {value}",
    "prob_below_min": "不能小于 {min}，实际为 {value}",
    "prob_above_max": "不能大于 {max}，实际为 {value}",
    "prob_too_long": "超过 {max} 个字符",
    "prob_duplicate": "与第 {other} 行重名",
    "prob_missing_column": "缺少该列",
    "prob_before_arrival": "不能早于到达 tick {arrival}",
    "prob_too_many_rows": "trace 有 {rows:,} 个请求，超过交互运行的上限 {max:,}：请用 python -m sim run 运行，或先截短",
    "problems_more": "共 {n} 个问题，这里列出前 {listed} 个。改好后即可看到其余的。",
    "prob_no_rows": "trace 中没有请求",
    "prob_unreadable": "无法读取：{detail}",
    "prob_over_context": "prompt 与输出共需 {tokens} 个位置；模型只有 {context} 个",
    "prob_over_budget": "prompt 有 {prompt} 个 token，大于 token 预算 {budget}",

    # Metrics guide
    "guide_title": "指标指南",
    "guide_intro": (
        "每个指标衡量什么、在这里如何计算、包含哪些部分，并在示例推演中的一个请求上画出来。请选择策略和请"
        "求。"),
    "guide_policy": "策略",
    "guide_request": "请求",
    "guide_here": "本例（{name}）",
    "anatomy_title": "请求 {name}：排队、TTFT 与 token 间隔",
    "anatomy_ttft": "TTFT = {value}",
    "anatomy_queue": "排队 = {value}",
    "anatomy_tpot": "{n} 个间隔，平均 TPOT = {value}",
    "guide_queue_time_def": "请求在获得任何 token-work 之前等待调度器或容量的时间。",
    "guide_queue_time_formula": "\\text{排队时间} = t_{\\text{首次工作}} - t_{\\text{到达}}",
    "guide_queue_time_includes": (
        "包括等待空闲槽位、等待 tick 内剩余预算，或（静态批处理中）等待当前 batch "
        "结束；不包括 prefill 本身。"),
    "guide_ttft_def": "首 token 时间：从到达到输出第一个 token。",
    "guide_ttft_formula": "\\text{TTFT} = t_{\\text{首 token}} - t_{\\text{到达}}",
    "guide_ttft_includes": (
        "包括排队与 prefill；教学模式下还包括第一个 decode tick。真实服务器还要加上 "
        "tokenization、chat template、采样和 streaming。"),
    "guide_tpot_def": (
        "每输出 token 时间（token 间延迟）：首 token 之后相邻输出 token "
        "的平均间隔；只有一个 token 时为 0。"),
    "guide_tpot_formula": "\\text{TPOT} = \\frac{t_{\\text{末 token}} - t_{\\text{首 token}}}{n_{\\text{输出}} - 1}",
    "guide_tpot_includes": (
        "可按请求报告（取均值），也可报告所有间隔的分布；decode 之间的停顿（抢占、被长 "
        "prefill 挡住）会使其变大。"),
    "guide_throughput_def": "整个运行期间单位时间完成的输出 token 数。",
    "guide_throughput_formula": "\\text{吞吐} = \\frac{\\sum_r n_{\\text{输出}}(r)}{\\text{makespan}}",
    "guide_throughput_includes": "不能说明每个请求是否满足了延迟目标。",
    "guide_goodput_def": (
        "满足全部给定 SLO（TTFT、TPOT、端到端上限）的请求（或其 "
        "token）。在实验室中设置 SLO 即可观察它的变化。"),
    "guide_goodput_formula": (
        "\\text{goodput} = \\#\\{r : \\text{TTFT}_r \\le "
        "T_1,\\ \\text{TPOT}_r \\le T_2,\\ \\text{E2E}_r \\le "
        "T_3\\}"),
    "guide_goodput_includes": "未设置 SLO 时所有请求都计入；按单位时间计时再除以 makespan。",
    "guide_makespan_def": "从 tick 0 到整条 trace 最后一个 token 输出的时间。",
    "guide_makespan_formula": "\\text{makespan} = \\max_r t_{\\text{末 token}}(r)",
    "guide_makespan_includes": "适合在固定 trace 上做离线调度对比。",
    "guide_padding_waste_def": (
        "花在无用功上的 token-work：把 prompt padding 到 batch 最长 "
        "prompt 的位置，加上已完成成员占着的 decode 槽位。"),
    "guide_padding_waste_formula": (
        "\\text{浪费} = \\sum_{\\text{batch}} (n \\cdot "
        "p_{\\max} - \\textstyle\\sum p) + \\text{空闲 decode "
        "槽位}"),
    "guide_padding_waste_includes": "连续批处理没有这项浪费：不做 padding，完成的请求会让出槽位。",
    "guide_utilization_def": "token 预算中用于有效 prefill 和 decode 工作的比例。",
    "guide_utilization_formula": (
        "\\text{利用率} = \\frac{\\text{prefill} + "
        "\\text{decode token}}{\\text{预算} \\times "
        "\\text{makespan}}"),
    "guide_utilization_includes": "padding 不算有效工作；空闲 tick 计为未使用的预算。",
    "guide_fair_title": "公平的 A/B 对比",
    "guide_hood_title": "深入代码：种子文档的四个步骤在 sim 中的位置",
    "guide_hood": (
        "连续批处理的每一轮迭代都是种子文档的四个步骤。在 `sim/core/continuous.py` 中，"
        "`Continuous.plan` 依次调用它们，每步一个函数：\n"
        "1. **运行中的请求 decode**：`plan_decodes`（投机解码的草稿 token；预算不够时部分 decoder 暂停）。\n"
        "2. **释放已完成的请求**：迭代运行之后的 `Continuous.commit`：输出最后一个 token 的请求离开 batch"
        "（`Scheduler.exit`）并释放其 KV block（`free_blocks`）。\n"
        "3. **在预算内接纳**：`plan_prefills`（进行中的 prefill 分块，先换回被换出的请求）和 "
        "`admit_waiting`（按策略顺序遍历队列，受 token 预算、序列上限、KV cache 和租户配额约束）。"
        "计划只做决定：被接纳的请求在迭代提交时才占用槽位（`Scheduler.bring_in`）；它唯一改动的是 KV 一侧，"
        "即 batch 运行前需要的 block，与 vLLM 调度器分配 block 的时机相同。\n"
        "4. **组成 batch**：`form_batch`（CUDA graph 填充、注意力读取的上下文、之后有多少轮相同的迭代）。\n\n"
        "在这之前，执行器先调用 `Scheduler.advance`，由 `at_start` 处理迭代开始时随时间发生的事：到达、停止、"
        "KV 增长与抢占（`Scheduler.grow_due`）、抢占式优先级；这些不是计划的决定。每个请求的状态是一条记录（`sim/core/request.py` 的 "
        "`RequestState`），decode 进度在那里惰性计数（`DecodeRounds`）。调度器交给执行器（模拟器的代价模型"
        "或真实引擎的前向计算）的计划是一个 `Iteration`（`sim/core/iteration.py`）。"),
    "guide_fair": (
        "只有在**同一负载、同一 arrival trace**，并且**同一模型、同一硬件、同一输出语"
        "义**（相同的首 token 规则、相同的停止条件）下，策略对比才公平。报告吞吐实验时还要说明："
        "\n\n- 排除了哪些 **warm-up** 运行；\n- **请求长度分布**（prompt "
        "与输出）；\n- **并发上限**（最大运行序列数）；\n- **调度预算**（token "
        "预算、KV 容量）；\n- **采样**设置；\n- 延迟中是否计入 "
        "**streaming**。\n\n实验室天然保证两个策略使用同一条 trace、同一组预算。"),

    # What it costs (the cost lesson)
    "nav_costs": "代价",
    "unit_s": "秒",
    "cost_title": "连续批处理的代价",
    "cost_intro": (
        "示例推演展示了 iteration 级调度赢在哪里。每一项收益都有代价，而 tick "
        "把它藏了起来：tick 模型里每次迭代都是 1 个 tick，所以 TPOT 总是 "
        "1。这里的迭代像真实服务器一样以毫秒计：**c0 + c_prefill × prefill "
        "token 数 + c_decode × decode 请求数 + c_attn × "
        "读取的上下文**。下面八种代价，各用一条能显出它的 trace，并在图上标出名称和数值。（第 "
        "1 课把示例的每个 tick 读作 {ms} 毫秒。）"),
    "cost_hardware": "第 2–5 课运行在",
    "cost_hardware_teaching": "教学用 GPU（线性模型）",
    "cost_hardware_real": "真实 GPU：一块 L4 上的 Llama-3.1-8B（roofline）",
    "cost_hardware_note": (
        "同样的 trace，换成真实模型和 GPU、真实规模。第 4 课的 KV cache 是 L4 显存的 {utilization}（vLLM 的 "
        "--gpu-memory-utilization，其他任务共用这块 GPU）扣除权重后剩下的部分：{blocks} 个块，每块 16 个 token。"),
    "cost_back": "回到示例推演",
    "cost_running": "正在模拟八节课……",
    "cost_download": "下载此表（CSV）",
    "cost_example_gantt": "以毫秒计的示例推演",
    "cost_continuous": "连续",
    "cost_chunk2": "分块 prefill，每块 2 个 token",
    "cost_chunk1": "分块 prefill，每块 1 个 token",
    "cost_chunk128": "分块 prefill，每块 128 个 token",
    "cost_fcfs": "严格到达顺序（fcfs）",
    "cost_skip": "跳过装不下的（fcfs-skip）",
    "cost_fcfs_chunk": "fcfs + 分块 prefill",
    "cost_reserve": "预留完整输出（reserve）",
    "cost_overcommit": "超额准入（overcommit）",
    "cost_static": "静态",
    "cost_col_a_worst": "A 的最长间隔",
    "cost_col_a_ttft": "A 的 TTFT",
    "cost_col_c_ttft": "C 的 TTFT（毫秒）",
    "cost_col_makespan": "总时长（毫秒）",
    "cost_col_itl_p50": "间隔 p50",
    "cost_col_itl_p99": "间隔 p99",
    "cost_col_ratio": "p99 / p50",
    "cost_col_ttft_p90": "TTFT p90",
    "cost_col_ttft_p99": "TTFT p99",
    "cost_col_short_wait": "短：中位数",
    "cost_col_long_wait": "长：中位数",
    "cost_col_long_max": "长：最长",
    "cost_col_preemptions": "抢占次数",
    "cost_col_recomputed": "重算的 token",
    "cost_col_iterations": "迭代数",
    "cost_col_decisions": "调度决策数",
    "cost_col_changes": "请求进出次数",
    "cost_col_plan": "每次迭代的规划时间",
    "cost_interference_title": "Prefill–decode 干扰",
    "cost_interference_named": "C 做 prefill 时 A 等一个 token 要 {worst}，平时为 {usual}（+{rise}）",
    "cost_interference_story": (
        "还是示例推演：到达时刻的一个 tick 读作 {tick}（一个请求的一次 decode 迭代），每次迭代的时长由它"
        "的工作量决定。**静态批处理**让在 {c_arrival} 到达的 C 一直等到 A、B 这个 batch 结束：C 到达 "
        "**{c_static}** 后才拿到首 token，整条 trace 在 **{end_static}** 结束。**连续批处理**立即接纳 C："
        "**{c_ttft}** 后拿到首 token，在 **{end}** 结束。示例推演中 C 的 TTFT {c_ticks_static} → "
        "{c_ticks}，在这里是 **{c_static} → {c_ttft}**；总时长 {end_ticks_static} → {end_ticks}，在这里是"
        " **{end_static} → {end}**（表中每个数值都给出两种单位）。\n\n这次接纳是有代价的。C 的 {c_prompt} "
        "个 prefill token 与 A、B 的 decode 同处一次迭代：这次迭代耗时 **{worst}** 而不是 **{usual}**，A "
        "为这个 token 多等了 **+{rise}**。这就是 prefill–decode 干扰：新请求的 prefill 拉长了所有正在 "
        "decode 的请求的间隔。分块 prefill（Sarathi）把 prompt 分到多次迭代：每块 1 个 token 时 A 的最长"
        "间隔为 **{chunked_worst}**，但 prefill 完成得更晚：C 的 TTFT 从 **{c_ttft}** 升到 "
        "**{c_ttft_chunked}**，A 自己的从 **{a_ttft}** 升到 **{a_ttft_chunked}**。"),
    "cost_gap_axis": "间隔（{unit}）",
    "cost_jitter_title": "TPOT 抖动",
    "cost_jitter_named": (
        "token 间隔 p99 {p99} = p50（{p50}）的 {ratio} 倍；分块 "
        "prefill：{chunked_p99} = {chunked_ratio} 倍"),
    "cost_jitter_story": (
        "300 个请求，每秒 4 个，prompt 长尾分布（中位数 200 个 token，有的超过 "
        "2,000）。每个点是一次迭代：大多数约 **{p50}**，也就是 decode 请求两个 "
        "token 之间的时间。带着长 prompt prefill 的迭代要长得多，其中每个在 "
        "decode 的请求都跟着等待：token 间隔 p99 为 **{p99}**，是中位数的 "
        "**{ratio} 倍**。用户看到输出流一卡一卡。每块 128 个 token 把 p99 "
        "降到 **{chunked_p99}**（**{chunked_ratio} 倍**），代价是 "
        "TTFT：p99 从 **{ttft}** 变为 **{ttft_chunked}**。"),
    "cost_iteration_axis": "迭代时长（{unit}）",
    "cost_hol_title": "队头阻塞与饥饿",
    "cost_hol_named": "fcfs：短 prompt 排队 {short_strict}（队头阻塞）；fcfs-skip：长 prompt 排队 {long_skip}（饥饿）",
    "cost_hol_story": (
        "短 prompt 每秒 10 个，每第十个请求是 {long} 个 token 的长 "
        "prompt，每次迭代预算 1,024 个 token：只有 decode 的请求很少时长 "
        "prompt 才装得下。**严格到达顺序**下，队头的长 prompt 挡住后面所有人：短 "
        "prompt 排队中位数为 **{short_strict}**（队头阻塞）。**跳过**装不下"
        "的请求让短 prompt 先行（**{short_skip}**），长 prompt "
        "于是挨饿：中位数 **{long_skip}**，最长 "
        "**{long_skip_max}**。分块 prefill 让长 prompt "
        "一块一块进入（长 prompt **{long_chunked}**，短 prompt "
        "**{short_chunked}**），代价落在每个 decode 的间隔上：token "
        "间隔 p50 从 **{itl}** 变为 **{itl_chunked}**。"),
    "cost_group_short": "短 prompt：中位数",
    "cost_group_long": "长 prompt：中位数",
    "cost_group_long_max": "长 prompt：最长",
    "cost_queue_axis": "排队时间（{unit}，对数刻度）",
    "cost_kv_title": "KV 压力与抢占",
    "cost_kv_named": (
        "overcommit：{preemptions} 次抢占，{recomputed} 个 "
        "token 重新 prefill；TTFT p99 {ttft} 对 "
        "{ttft_reserve}"),
    "cost_kv_story": (
        "还是抖动那条 trace，KV cache 为 {blocks} 个 "
        "block（{tokens} 个 token）。准入时**预留**完整输出所需的 block "
        "永远不会用尽，但占着尚未用到的内存，于是同时运行的请求更少：TTFT p99 "
        "**{ttft_reserve}**。**超额准入**只要 prompt "
        "装得下就接纳：TTFT p99 降到 **{ttft}**；而当 decode 填满 "
        "cache，最新的请求被抢占、KV 被丢弃：**{preemptions}** "
        "次抢占，**{recomputed}** 个 token 第二次 prefill（占全部 "
        "prefill 工作的 {share}）。这就是多接纳的代价。"),
    "cost_work_title": "调度器每次迭代的工作",
    "cost_work_named": (
        "连续批处理决策 {decisions} 次（每次迭代），静态 "
        "{static_decisions} 次；{changed} 次迭代前 batch 发生变化"),
    "cost_work_story": (
        "同一条抖动 trace，分别用静态与连续批处理，每次只规划一次迭代。静态批处理每个 batch 决策一次：共 "
        "**{static_decisions}** 次。连续批处理每次迭代都要重新决策，共 **{decisions}** 次，其中 "
        "**{changed}** 次（**{share}**）之前 batch 发生了变化。两者进出 batch 的请求一样多：每个请求加入 "
        "batch 一次、离开一次，两种策略都共有 **{moves}** 次进出。静态批处理在 **{static_changed}** 次 "
        "batch 变化中完成它们，每次整个 batch 离开、下一个 batch 进来（每次变化 **{static_per}** 个请求）"
        "；连续批处理每次只进出几个（每次变化 **{per}** 个）。在真实引擎中，每次变化都意味着重建 batch 张"
        "量和 block table，这些工作发生在两次前向计算之间的 CPU 上。规划一次迭代，连续批处理用时 "
        "**{plan}**，静态 **{static_plan}**：这是本模拟器在这台服务器上的 Python，在服务器启动时测量一次"
        "（预热一次后三次运行的中位数），所以每次访问看到的数值都相同。"),
    "cost_group_decisions": "调度决策",
    "cost_group_changed": "batch 变化后的迭代",
    "cost_work_axis": "次数（对数刻度）",
    "cost_hidden_title": "这些图仍然没有画出的东西",
    "cost_hidden": (
        "- 延迟模型是线性的：真实 GPU 的迭代时间在 batch "
        "填满算力之前几乎不变，之后才上升；真实模型页面实际测量了一个。\n- 规划时间是本模拟器的 "
        "Python，而不是 vLLM 的；真实引擎中，batch 张量、采样和反 tokenize "
        "每次迭代都会增加 CPU 时间。\n- 重算式抢占被建模为再做一遍 "
        "prefill；换出到主机内存则改为花费 PCIe 时间（Trace 实验室的 swap "
        "选项）。"),
    "unit_us": "微秒",
    "cost_gap_between": "token {a} → {b}",
    "cost_col_c_ttft_ticks": "C 的 TTFT（tick）",
    "cost_col_makespan_ticks": "总时长（tick）",
    "cost_col_changed": "batch 变化次数",
    "cost_col_per_change": "每次变化进出",
    "cost_static_short": "静态",
    "cost_continuous_short": "连续",
    "cost_chunk2_short": "分块 2",
    "cost_chunk1_short": "分块 1",
    "cost_chunk128_short": "分块 128",
    "cost_fcfs_short": "fcfs",
    "cost_skip_short": "fcfs-skip",
    "cost_fcfs_chunk_short": "fcfs + 分块",
    "cost_reserve_short": "预留",
    "cost_overcommit_short": "超额准入",
    "cost_lpm_fcfs_short": "到达顺序",
    "cost_lpm_lpm_short": "最长前缀",
    "cost_interference_topic": "以毫秒计的示例推演与 prefill–decode 干扰",
    "cost_jitter_topic": "TPOT 抖动",
    "cost_hol_topic": "队头阻塞与饥饿",
    "cost_kv_topic": "KV 压力与抢占",
    "cost_work_topic": "调度器的工作",
    "cost_moe_topic": "MoE 路由",
    "cost_stream_topic": "慢读者占住 KV 显存",
    "cost_lpm_topic": "缓存感知的排序",
    "cost_about": "这些课测量什么、如何测量",

    # Capacity lab (sweeps)
    "nav_capacity": "容量实验",
    "sw_title": "容量实验：负载多大时 SLO 开始失守？",
    "sw_intro": (
        "让同一条 trace 在两到四个策略下运行，同时改变一个参数：到达速率、token "
        "预算、序列上限、chunk 大小、KV 块数，或集群的形态（副本数，或分离部署中做预填充的引擎数）。**Goodput**（DistServe "
        "的定义）只统计满足全部 SLO 的请求；**拐点**是策略在满足目标比例的前提下能承受的最大负载"
        "。"),
    "sw_trace": "1. Trace",
    "sw_source": "Trace 来源",
    "sw_source_generated": "生成",
    "sw_source_upload": "上传真实 trace",
    "sw_source_lab": "Trace 实验室中的 trace",
    "sw_generator": "生成器设置",
    "sw_upload_first": "选择文件（Azure、Mooncake、BurstGPT 或原生 CSV/JSON）并点击导入。",
    "sw_lab_bad": "Trace 实验室的表格有问题，请先在 Trace 实验室中修正：",
    "sw_trace_summary": (
        "{n} 个请求在 {span} 个 tick 内到达（平均每 tick {rate} "
        "个）；平均 prompt {prompt}、平均输出 {output} 个 token。"),
    "sw_policies": "2. 策略、预算与 SLO",
    "sw_policies_intro": (
        "每行一个策略（两到四个），各有自己的预算。0 表示不限（序列数、KV "
        "块）或关闭（chunked prefill）。仅连续批处理可用的选项（chunk、overcom"
        "mit）在静态批处理行中必须保持关闭。"),
    "sw_col_label": "策略",
    "sw_col_batching": "批处理",
    "sw_col_order": "队列顺序",
    "sw_col_budget": "预算",
    "sw_col_max_seqs": "序列上限",
    "sw_col_chunk": "chunk 大小",
    "sw_col_kv_blocks": "KV 块数",
    "sw_col_kv_admission": "KV 准入",
    "sw_col_preempt": "抢占",
    "sw_policy_count": "请给出 1 到 {most} 个策略（行）。",
    "sw_policy_label": "策略第 {row} 行：请起一个与其他行不同的名字。",
    "sw_policy_bad": "策略第 {row} 行（{label}）：{reason}",
    "sw_target": "达标率目标",
    "sw_cost_help": (
        "Tick：每次 iteration 一个 tick。实测 profile：每次 iteration 耗时为真实引擎在本机上处理该形状 batch "
        "的时间。真实 GPU：每次 iteration 耗时为真实模型在真实 GPU 上的 roofline 时间。两者下到达与延迟都以毫秒计。"),
    "sw_cost_roofline_note": "trace 中的每个 tick 按 1 毫秒解释。",
    "sw_cost_profile_note": "扫描按本机实际服务的方式运行：trace 中的每个 tick 按 1 毫秒解释。",
    "sw_target_help": "拐点是至少这一比例的请求满足全部 SLO 时的最大负载。",
    "sw_sweep": "3. 扫描",
    "sw_parameter": "扫描参数",
    "sw_parameter_help": (
        "到达速率是 trace 自身速率的倍数（2 = 同样的请求以两倍速度到达；到达时间向下取整到 "
        "tick）。其他参数会替换每个策略自己的取值。副本数让每一行在路由器后用这么多引擎运行；"
        "分离部署的预填充引擎数在预填充和解码两侧之间挪动引擎，总数不变，而并排运行的行保持不变：作为基线。"),
    "sw_param_rate": "到达速率（trace 的倍数）",
    "sw_param_token_budget": "token 预算",
    "sw_param_max_seqs": "最大序列数",
    "sw_param_chunk_size": "chunk 大小",
    "sw_param_kv_blocks": "KV 块数",
    "sw_low": "从",
    "sw_high": "到",
    "sw_points": "点数",
    "sw_bad_range": "无法扫描这个范围：{reason}",
    "sw_low_high": "“到”必须大于“从”。",
    "sw_too_much": (
        "这次扫描需要模拟 {work} 个请求（点数 x 策略数 x trace 长度）；网页最多 "
        "{most} 个。请减少点数或请求数，或在命令行运行 `python -m sim "
        "sweep`。"),
    "sw_run": "运行扫描",
    "sw_running": "正在模拟第 {done}/{total} 个点……",
    "sw_press_run": "点击**运行扫描**。",
    "sw_stale": "输入在上次扫描后已改变：点击“运行扫描”更新结果。",
    "sw_knees": "拐点",
    "sw_budget_fitted": "策略的 token 预算已设为 {budget}，以容纳这条 trace 中最长的 prompt。",
    "sw_knee_rate": (
        "- **{policy}** 在到达速率达到 trace 的 **{value} 倍**（每 "
        "tick {rate} 个请求）之前，保持至少 {target} 的请求满足全部 SLO。"),
    "sw_knee_capacity": "- **{policy}** 在{parameter}不小于 **{value}** 时，保持至少 {target} 的请求满足全部 SLO。",
    "sw_knee_none_load": "- **{policy}** 即使在扫描范围内最轻的负载下也达不到 {target}。",
    "sw_knee_none_capacity": "- **{policy}** 即使在扫描范围内的最大取值下也达不到 {target}。",
    "sw_knee_rate_edge": (
        "- **{policy}** 在扫描的所有负载下都保持至少 {target} 的请求满足全部 SLO，直到扫描的终点 **{value}x** 倍 trace "
        "到达率（每 tick {rate} 个请求）：拐点在扫描范围之外。"),
    "sw_knee_capacity_edge": (
        "- **{policy}** 在扫描的所有{parameter}下都保持至少 {target} 的请求满足全部 SLO，低至扫描的起点 **{value}**："
        "拐点在扫描范围之下。"),
    "sw_knee_edge_rate": "≥ {value}（扫描终点）",
    "sw_knee_edge_capacity": "≤ {value}（扫描起点）",
    "sw_col_replicas": "副本",
    "sw_col_replicas_help": "相同的引擎，每个都有这一行的预算和 KV cache，位于路由器之后。1：单个引擎。",
    "sw_col_router": "路由",
    "sw_col_router_help": "请求到达时放到哪里（分离部署时：放到哪个预填充引擎）。prefix-affinity 需要前缀缓存。",
    "sw_col_prefill_replicas": "预填充",
    "sw_col_prefill_replicas_help": "为每个请求做预填充并生成第一个 token 的引擎（代替副本的分离部署；0：不分离）。第一个 token 必须由预填充产生。",
    "sw_col_decode_replicas": "解码",
    "sw_col_decode_replicas_help": "请求的提示词 KV block 到达后为其解码的引擎（选请求最少的那个）。",
    "sw_col_kv_transfer_latency": "延迟",
    "sw_col_kv_transfer_latency_help": "分离部署中一次 KV 传输在 block 之外的固定时间，单位 tick（实测 profile 下为 ms）。",
    "sw_col_kv_transfer_per_block": "每 block",
    "sw_col_kv_transfer_per_block_help": "传输每个 KV block 的时间，单位 tick（实测 profile 下为 ms）。",
    "sw_col_engines": "引擎",
    "sw_param_replicas": "副本数",
    "sw_param_prefill_replicas": "分离部署的预填充引擎数",
    "sw_short_replicas": "副本",
    "sw_short_prefill_replicas": "预填充",
    "sw_best_split_label": "{policy} 的最佳划分：{value}",
    "sw_split_best": "- **{policy}**：它的 {engines} 个引擎的最佳划分是 **{split}**（预填充 + 解码），满足全部 SLO 的请求为 {attainment}。",
    "sw_split_best_misses": "- **{policy}** 在它的 {engines} 个引擎的每种划分下都达不到 {target}：最好的 **{split}**（预填充 + 解码）满足全部 SLO 的请求为 {attainment}。",
    "sw_split_baseline": "- **{policy}** 让它的 {engines} 个引擎并排运行，每个点都一样：满足全部 SLO 的请求为 {attainment}，是分离部署的基线。",
    "sw_throughput_per": "token/{unit}",
    "sw_columns": "列",
    "sw_columns_policy": "批处理与队列顺序",
    "sw_columns_budgets": "预算（token、序列、chunk）",
    "sw_columns_kv": "KV cache（块数、准入、抢占）",
    "sw_columns_prefix": "前缀缓存",
    "sw_columns_fleet": "集群（副本和路由）",
    "sw_columns_split": "预填充/解码分离（引擎）",
    "sw_columns_transfer": "分离部署的 KV 传输（延迟、每 block）",
    "sw_hidden_differ": "各行在未显示的列中也有不同：{columns}。",
    "sw_knee_label": "{policy} 的拐点：{value}",
    "sw_why": "为什么有的曲线与直觉相反",
    "sw_why_attainment": "在 {value} 处，**{ahead}** 不如 **{behind}**：满足全部 SLO 的请求为 {a}，对方为 {b}。",
    "sw_why_throughput": "在 {value} 处，**{ahead}** 的吞吐低于 **{behind}**：每 tick {a} 个 token，对方为 {b} 个。",
    "sw_why_starves_ahead": (
        "在 **{policy}** 下长 prompt 被饿死：最慢的 1% 请求平均 prompt "
        "为 {slow} 个 token（trace 平均为 {mean}）。prompt "
        "只能整体准入，decode 请求留下的预算装不下长 prompt，更短的 prompt "
        "便越过它先行。"),
    "sw_why_starves_behind": (
        "**{policy}** 的成绩是靠饿死长 prompt 换来的：它最慢的 1% 请求平均 "
        "prompt 为 {slow} 个 token（trace 平均为 {mean}）；短 "
        "prompt 越过它们，仍然满足 SLO。"),
    "sw_why_idle": (
        "**{policy}** 有 {idle} 的 token "
        "预算在有请求排队时空闲（**{them}** 为 {other}）：排队的请求都装不进剩下的预算"
        "。"),
    "sw_why_order": (
        "**{policy}** 按到达顺序服务队列，负载一旦超过其处理能力，每个请求都要等待：TTFT"
        " p50 为 {a} 个 tick，**{them}** 为 {b} 个。"),
    "sw_why_none": "这里每条曲线都符合直觉：没有哪个本应更好的策略表现更差。",
    "sw_default_note": (
        "默认场景：prompt 为 1–8 个 token，预算为每 tick 12 个 "
        "token，最长的 prompt 也能与四个 decode 请求同批。若把预算设为种子文档的 "
        "8，长度为 8 的 prompt 只能在没有任何 decode 的 tick "
        "开始：连续批处理于是在长 prompt 挨饿时空着预算，拐点跌到与静态批处理相同。出现这种情况时"
        "，图表下方会说明原因。"),
    "sw_tpot_flat": (
        "每个点的 TPOT 都是 {value} {unit}：在 tick 模型中，处于 "
        "decode 的请求每 tick 产生一个 token。代价一课以毫秒度量 "
        "TPOT，在那里它会变化。"),
    "sw_chart_idle": "有请求排队时空闲的预算（占 token 预算的 %）",
    "sw_target_line": "目标 {target}",
    "sw_failed": "{n} 个点无法运行（按未满足 SLO 计）：",
    "sw_point_stopped": "计算 {seconds} 秒后被停止，此时模拟到 {time}",
    "sw_stopped_why": (
        "迭代无法合并（投机解码、MoE 路由、读得慢的流式客户端、小的 prefill 分块都要一轮一轮地规划）且数量太多时，"
        "这台共用的服务器会停止该点。请缩短最长的请求，或用 `python -m sim sweep` 扫描这条 trace（命令行没有限制）。"),
    "sw_rate_axis": "（1 = 每 tick {rate} 个请求）",
    "sw_chart_attainment": "SLO 达标率（满足全部 SLO 的请求比例）",
    "sw_chart_goodput": "Goodput（每 {unit} 满足全部 SLO 的请求数）",
    "sw_chart_ttft": "TTFT：p50 实线，p90 虚线，p99 点线",
    "sw_chart_tpot": "TPOT：p50 实线，p90 虚线，p99 点线",
    "sw_chart_throughput": "吞吐（每 {unit} 输出 token 数）",
    "sw_per_unit": "请求 / {unit}",
    "sw_tokens_per_unit": "token / {unit}",
    "sw_table": "全部数据点",
    "sw_goodput": "goodput（请求/tick）",
    "sw_attainment_pct": "达标率 %",
    "sw_ttft_col": "TTFT p{q} ({unit})",
    "sw_idle_pct": "空闲预算 %",
    "sw_idle_left": "为了放得下，表格把每个点的空闲预算留给下面的 CSV。",
    "sw_short_rate": "负载 (×)",
    "sw_short_token_budget": "预算",
    "sw_short_max_seqs": "序列上限",
    "sw_short_chunk_size": "chunk",
    "sw_short_kv_blocks": "KV 块数",
    "sw_prefix_example": "示例：前缀缓存",
    "sw_prefix_example_help": (
        "载入一条 Mooncake 形状的 trace（600 个请求：每段对话三轮，都以同一个 48 token 的系统提示开头），在"
        "其他条件相同时，对比开启与关闭前缀缓存时负载扫描的结果。"),
    "sw_split_example": "示例：预填充与解码分离",
    "sw_split_example_help": "载入 400 个请求（每 ms 0.6 个，提示词 32–192 个 token），用本机实测的 profile 计时：解码旁边的预填充会让它们的迭代变长；然后扫描 4 个引擎中有几个做预填充：4 个并排运行，对比分离部署经快速链路和慢速链路两种情况，TTFT SLO 为 100 ms，TPOT SLO 为 2 ms。",
    "sw_split_side": "4 个并排",
    "sw_split_fast": "分离，快速链路",
    "sw_split_slow": "分离，慢速链路",
    "sw_prefix_off": "无缓存",
    "sw_prefix_on": "前缀缓存",
    "sw_default_static": "静态",
    "sw_default_continuous": "连续",
    "sw_default_chunked": "分块 prefill",
    "sw_download": "下载扫描结果（CSV）",
    "dl_prom_tick_ms": "导出时 1 tick 为多少毫秒",
    "dl_prom_tick_help": "Prometheus 和 vLLM 以秒计时；请给出一个 tick 的时长。",
    "dl_prom_ms": "时间单位为毫秒；导出时换算为秒。",
    "dl_prometheus": "{label} 的指标（Prometheus，vLLM 命名）",
    "dl_prometheus_help": (
        "本次运行的指标，Prometheus 文本格式，使用 vLLM "
        "的指标名与直方图分桶（vllm:time_to_first_token_seconds "
        "等）。Gauge 为整个运行期间的时间加权平均；README 给出逐项对照及口径差异。"),

    # -- Streaming backpressure and the request lifecycle --
    "cost_stream_title": "读得慢的客户端占住 KV 显存",
    "cost_stream_named": (
        "流式额度 {credits} 并原地暂停时，慢请求在 {e2e} 内占着 {capacity} 个块中的 {blocks} 个；其他请求的 TTFT "
        "p50 {ttft} → {ttft_paused}"),
    "cost_stream_story": (
        "一个客户端每秒只读 **{rate} 个 token**，同时有四十个其他请求来来去去，共用 {capacity} 个块的 KV 缓存。"
        "若**不限制**请求可积压的未读 token，服务器在 **{made}** 内就生成完慢请求的全部 {output} 个 token，"
        "放在输出缓冲区里等客户端读（这是 KV 缓存之外的内存，额度正是为了给它设上限）。设置 **{credits} 个流式"
        "额度**后，请求最多只能领先客户端 {credits} 个 token：在它 **{e2e}** 的生命周期里有 **{paused}** 处于"
        "**暂停**，而这段时间它一直占着槽位和 **{blocks} 个 KV 块**。其他请求只能等这块内存：它们的 TTFT p50 "
        "从 **{ttft}** 升到 **{ttft_paused}**（p90 {p90_paused}）。让暂停的请求**让出**资源，块立刻归还（其他"
        "请求的 TTFT p50 **{ttft_released}**），代价是它被抢占 **{preemptions}** 次，每次客户端追上后都要重新"
        "预填充，共 **{recomputed}** 个 token。下面的甘特图画出了暂停段。"),
    "cost_stream_gantt": "{credits} 个额度、原地暂停：慢请求和前 {others} 个其他请求",
    "cost_unbounded": "不设上限（全部缓冲）",
    "cost_credits_paused": "设额度，原地暂停",
    "cost_credits_released": "设额度，暂停即让出",
    "cost_col_slow_e2e": "慢请求的 E2E",
    "cost_col_slow_paused": "慢请求暂停时长",
    "cost_col_others_ttft_p50": "其他请求 TTFT p50",
    "cost_col_others_ttft_p90": "其他请求 TTFT p90",
    "rm_source_slow_reader": "客户端读得慢",
    "rm_source_disconnect": "客户端断开",
    "rm_scenario_slow_reader": (
        "请求 2 的客户端每秒读 {rate} 个 token，比模型生成得慢。策略 2 设有 {credits} 个流式额度：每当请求 2 有 "
        "{credits} 个 token 未读，引擎就暂停它，期间它保留槽位和 KV 块（策略 2 的甘特图中的暂停段）。策略 1 不设额度："
        "服务器一路生成，把客户端没读的先缓冲起来。"),
    "rm_scenario_disconnect": (
        "请求 2 的客户端在到达后第 {after} 次迭代时离开：引擎在下一个迭代边界停止它，立即释放其槽位和 KV 块；"
        "正在进行的那次迭代生成的 token 永远不会送达（浪费）。策略 1 用静态批处理，策略 2 用连续批处理。"),
    "opt_short_stream_credits": "流式额度 {value}",
    "opt_short_release_paused": "暂停即让出",
    "cost_col_figure": "指标",
    "cost_unbounded_short": "不设上限",
    "cost_credits_paused_short": "原地暂停",
    "cost_credits_released_short": "让出资源",
    "phase_paused": "暂停（客户端）",
    "event_disconnect": "客户端离开",
    "hover_event_disconnect": "<b>%{y}</b>：客户端在 %{x} 断开",
    "reason_disconnected": "客户端离开",
    "m_disconnected": "客户端离开的请求",
    "m_unsent_tokens": "生成但未被读取的 token",
    "col_disconnected": "客户端离开",
    "cfg_read_rate": "客户端读取速率（每个时间单位的 token 数，0 = 来多少读多少）",
    "cfg_read_rate_help": (
        "每个客户端读取输出流的速度，用于 trace 中没有 read_rate 列的请求。启用流式额度时，客户端跟不上的请求会"
        "停止解码，直到客户端读完积压的 token。"),
    "stream_settings": "流式输出到客户端（背压）",
    "stream_about": (
        "每个请求把 token 流式发给客户端，客户端按自己的速度读取：trace 的 read_rate 列（每个时间单位的 token 数），"
        "或下面的默认速率。客户端可能中途离开：disconnect_at 列。若策略设置了流式额度，一个请求最多只能积压这么多"
        "客户端尚未读取的 token；额度用完时它被暂停：保留批次槽位和 KV 块，但不解码。生成了却从未被读取的 token "
        "就是浪费。"),
    "opt_stream_credits": "流式额度：可积压的未读 token 数（0 = 不限）",
    "opt_stream_credits_help": (
        "有界的输出缓冲，如同服务器每条流的流控窗口：已生成但客户端未读的 token 达到此数时，请求不再解码"
        "（暂停，保留槽位和 KV 块）。"),
    "opt_release_paused": "暂停的请求让出槽位",
    "opt_release_paused_help": (
        "暂停的请求不再占着槽位和 KV 块等客户端，而是被抢占（按所选方式重算或换出），等客户端读够后重新排队。"),

    # -- The real engine's options: speculative decoding, swap, CUDA graphs --
    "rm_kv_blocks": "KV cache 块数（0 表示每个槽位都够用）",
    "rm_kv_blocks_help": (
        "模型的分页 KV cache，每块 4 个 token。cache 小、又用超额准入时，块用完后引擎会抢占请求：重算，或换出"
        "（把它的块复制到主机内存，之后再复制回来）。"),
    "rm_spec": (
        "**{label}** · 自推测解码：由模型自己的第一层每步起草 {k} 个 token，再由整个模型在批量前向中验证。"
        "起草的 {proposed} 个 token 中接受了 {accepted} 个：**{rate}**。下面模拟器的预测按这个接受率画出每一步。"),
    "rm_spec_none": "{label}：没有起草任何 token（每一步都生成了某个请求的最后一个 token）。",
    "rm_spec_to_lab": "把这个策略和接受率 {rate} 交给实验室的{label}",
    "rm_spec_to_lab_help": (
        "trace 实验室的{label}改为这个策略，接受率用这里实测的值，模拟器就会画出与这次运行相同的推测解码。"),
    "rm_spec_in_lab": "实验室的{label}现在每步起草 {k} 个 token，接受率 {rate}。",
    "rm_swap_title": "{label} · KV 块换出换入的复制（实测）",
    "rm_swap_out": "复制到主机内存",
    "rm_swap_in": "复制回来",
    "rm_swap_hover": "<b>%{y}</b> 在 %{x:.1f} ms：%{customdata[0]} 个 KV 块，用时 %{customdata[1]} ms",
    "rm_swap_caption": (
        "KV 块在 cache 与主机内存（{where}）之间复制了 {copies} 次，共用 {ms} ms，占整次运行 {makespan} ms 的 "
        "{share}。每个标记是一次复制（悬停可见块数和用时）；上面的甘特图画出每个被换出请求的等待，以及把它换回来的那次 "
        "iteration。"),
    "rm_swap_where_cpu": "CPU 上一个单独的张量池",
    "rm_swap_where_cuda": "锁页主机内存",
    "rm_swap_none": "{label}：没有请求被换出（KV cache 够用）。减少 KV 块数并用超额准入，就能看到换出。",
    "rm_graph_title": "{label} · decode iteration 与 CUDA graph",
    "rm_graph_replayed": "行，重放 graph",
    "rm_graph_eager": "行，eager 执行",
    "rm_graph_rows": "计算的行数",
    "rm_graph_hover": "从 %{{customdata[0]}} ms 起，用时 %{{customdata[1]}} ms<br>{kind}：%{{y}}",
    "rm_graph_cpu": (
        "CUDA graph 需要 CUDA 设备：在这台 CPU 上每个 batch 都是 eager 执行，把 decode batch 补齐到各档大小"
        "（{buckets}）的 {padding} 行照计划计算了，占 decode 行数的 {share}。"),
    "rm_graph_cuda": (
        "{decodes} 次 decode iteration 中有 {replayed} 次重放了捕获的 CUDA graph（档位 {buckets}）；{eager} 次 eager "
        "执行（超过最大档位，或含推测解码步骤）。为 graph 付出的补齐：{padding} 行，占 decode 行数的 {share}。"),

    # -- MoE routing --
    "moe_settings": "MoE 路由（模拟；两个策略相同）",
    "moe_simulated_only": (
        "仅为模拟：真实模型页面上的小型 Transformer 是稠密模型，没有专家。专家数大于 0 时，每次迭代的 token"
        "（prefill token 与 decode token-work，不含填充）都按种子路由，每个 token 去往 top-k 个不同的专家，"
        "选中概率服从 Zipf 流行度。专家数为 0 即稠密模型。"),
    "moe_formula": (
        "每次迭代在成本模型之外再加上：**c_expert × 最忙专家的 token 选择数 + c_a2a × 跨设备的选择数**（毫秒）。"
        "专家平均分布在各设备上；发往某个设备的选择中，有 1/设备数（向下取整）来自本就在该设备上的 token，"
        "其余跨设备。"),
    "moe_formula_ticks": (
        "在 tick 模型下，每次迭代仍是一个 tick：专家负载照常路由并绘出，但不花时间。选择延迟模型（毫秒）才能看到"
        "它们的代价：c_expert × 最忙专家的选择数 + c_a2a × 跨设备的选择数。"),
    "cfg_moe_experts": "专家数（0 = 稠密，无 MoE）",
    "cfg_moe_experts_help": "token 可被路由到的专家数（Mixtral 为 8，DeepSeek-V3 为 256）；最多 1,024。",
    "cfg_moe_top_k": "每个 token 的专家数（top-k）",
    "cfg_moe_top_k_help": "每个 token 发往这么多个不同的专家。",
    "cfg_moe_skew": "流行度偏斜（Zipf 指数）",
    "cfg_moe_skew_help": (
        "0：所有专家同样受欢迎。越大，流行度排名为 r 的专家被选中的概率正比于 1 / (r + 1)^skew，"
        "少数专家拿到大部分 token。最大为 10。"),
    "cfg_moe_devices": "设备数（专家并行）",
    "cfg_moe_devices_help": (
        "专家平均分布在这么多个设备上（须整除专家数）；若 token 选择的专家在另一个设备上，"
        "它就要经 all-to-all 跨设备传送。"),
    "cfg_moe_c_expert": "c_expert（毫秒/最忙专家的每个选择）",
    "cfg_moe_c_expert_help": "所有专家都要等最忙的那个：迭代增加 c_expert × 它的 token 选择数。",
    "cfg_moe_c_a2a": "c_a2a（毫秒/每个跨设备选择）",
    "cfg_moe_c_a2a_help": "all-to-all 要传送所有专家在其他设备上的选择：迭代增加 c_a2a × 它们的数量。",
    "cfg_moe_seed": "路由种子",
    "cfg_moe_seed_help": "同样的 trace、设置和种子给出同样的路由。",
    "moe_heatmap_title": "每次迭代的专家负载 · {policy}",
    "moe_heatmap_first": "共 {total} 次迭代，只画前 {n} 次",
    "moe_axis_tokens": "token 数",
    "moe_axis_iteration": "迭代",
    "moe_axis_expert": "专家",
    "moe_hover": "第 %{x} 次迭代 · 专家 %{y}：%{z} 个 token",
    "moe_heatmap_note": (
        "每列是一次迭代，每行是一个专家；颜色表示路由到该专家的 token 数。一列中最忙的专家决定该次迭代的专家时间"
        "（c_expert × 它的 token 数），所以 token 数相同的迭代也可能耗时不同。"),
    "moe_heatmap_note_ticks": (
        "每列是一次迭代，每行是一个专家；颜色表示路由到该专家的 token 数。在 tick 模型下这些负载不花时间："
        "选择延迟模型（毫秒）才能看到它们的代价。"),
    "cost_moe": "连续批处理 + MoE 路由",
    "cost_moe_title": "MoE：批大小相同，耗时不同",
    "cost_moe_named": (
        "每次都是 {tokens} 个 token：最忙专家拿到 {fast_load} 个时 {fast_ms}，拿到 {slow_load} 个时 "
        "{slow_ms}（+{rise}）"),
    "cost_moe_story": (
        "混合专家（MoE）层把每个 token 发往 {experts} 个专家中得分最高的 {k} 个；专家并行计算，所以这一层要等最忙"
        "的专家，而专家位于 {devices} 个设备中另一设备上的 token 还要经 all-to-all 跨设备传送。模拟器为每次迭代加上 "
        "**c_expert × 最忙专家的 token 选择数 + c_a2a × 跨设备的选择数**（这里分别为 {c_expert} 和 {c_a2a} 毫秒），"
        "受欢迎的专家被选中得更多（Zipf 偏斜为 1）。\n\n"
        "在 {n} 次 decode {tokens} 个请求的迭代中，第 {fast} 次最快，第 {slow} 次最慢：两者都是 {tokens} 个 token、"
        "{choices} 个专家选择，稠密部分也相同（{dense}）。第 {fast} 次迭代中最忙的专家（专家 {fast_expert}）拿到 "
        "{fast_load} 个选择；第 {slow} 次迭代中专家 {slow_expert} 拿到 {slow_load} 个，于是耗时 **{slow_ms} 而不是 "
        "{fast_ms}**（+{rise}）。只看批大小，无法预测 MoE 迭代的延迟。"),
    "cost_moe_expert": "专家 {e}",
    "cost_moe_iteration": "第 {n} 次迭代 · {ms}",
    "cost_moe_axis": "路由到的 token 选择数",
    "cost_moe_heatmap": "每次迭代的专家负载（标出这两次迭代）",
    "cost_moe_mark": "#{n}",
    "cost_col_choices": "专家选择数（token × top-k）",
    "cost_moe_fastest": "第 {n} 次（最快）",
    "cost_moe_slowest": "第 {n} 次（最慢）",
    "cost_col_tokens": "token 数（decode 的请求数）",
    "cost_col_busiest": "最忙专家",
    "cost_col_busiest_load": "其 token 选择数",
    "cost_col_crossing": "跨设备选择数",
    "cost_col_dense": "稠密部分",
    "cost_col_expert_ms": "c_expert × 最忙",
    "cost_col_a2a_ms": "c_a2a × 跨设备",
    "cost_col_total": "迭代时间",

    # -- Prefix caching and real engines' presets --
    "opt_order_lpm": "最长前缀匹配（SGLang）",
    "opt_victim_newest": "最后被接纳的",
    "opt_prefix_cache": "前缀缓存",
    "opt_prefix_cache_help": (
        "自动前缀缓存（vLLM、SGLang 的基数树缓存）：填满的 KV 块记住它保存的内容，提示以相同 token 开头的请"
        "求直接复用，无需再预填充。需要设置 KV 缓存大小。"),
    "opt_short_prefix_cache": "前缀缓存",
    "opt_preset": "真实引擎的调度器",
    "opt_preset_help": "复现真实引擎的调度规则；它所规定的选项由它决定（见下方说明）。",
    "opt_preset_": "无（使用下面的选项）",
    "opt_preset_nano_vllm": "nano-vllm",
    "opt_preset_vllm_v1": "vLLM v1",
    "opt_preset_sglang": "SGLang",
    "opt_preset_trt_guaranteed_no_evict": "TRT-LLM，保证不驱逐",
    "opt_short_preset": "{value}",
    "preset_about_nano_vllm": (
        "nano-vllm（提交 9e8507ef）：每一步要么预填充要么解码，从不混合；严格按到达顺序；最大序列数限制每一"
        "步而非运行集合；解码需要新块时抢占最新的请求；前缀缓存始终开启。已用 nano-vllm 自己的代码逐 token "
        "核对。"),
    "preset_about_vllm_v1": (
        "vLLM v1（0.33.0），与 vLLM 自己的调度器逐 token 一致：先在同一个 token 预算下调度运行中的请求，再按"
        "到达顺序调度等待的请求（整个 prompt 的 KV 块都空闲才接纳），启用分块预填充；KV 块按 chunk 随 token "
        "增长分配，不足时抢占最后接纳的请求，发生抢占的那一步不接纳新请求；前缀缓存。"),
    "preset_about_sglang": (
        "SGLang（ad0119fd）：等待队列按基数树缓存中最长的已有前缀排序（等待超过 128 个时退回到达顺序），分"
        "块预填充，以重算方式抢占。"),
    "preset_about_trt_guaranteed_no_evict": (
        "TensorRT-LLM 的“保证不驱逐”容量调度器：只有当整个序列所需的 KV 都有空闲时请求才开始，按到达顺序，"
        "因此从不驱逐。"),
    "cfg_prefix_block": "每个哈希 ID 覆盖的 token 数",
    "cfg_prefix_block_help": (
        "用于带 hash_ids 的 trace（Mooncake 的前缀块哈希）：每个 ID 覆盖的 token 数，Mooncake 为 512。KV 块"
        "大小必须能整除它，前缀缓存才能找到共享块。"),

    "marker_cached": "前缀缓存命中",
    "hover_cached": "<b>%{y}</b>：%{customdata} 个提示 token 在前缀缓存中找到（无需预填充）",
    "kv_total_shared": "使用中的块（共享块只计一次）",

    "preset_shared_prefix": "共享前缀（前缀缓存）",
    "preset_shared_prefix_note": (
        "每个对话都以同一段 48 个 token 的系统提示开头，每一轮都会重发上一轮的提示（hash_ids 列标出共享的块"
        "，与 Mooncake 的 trace 相同）。策略 2 启用了前缀缓存：看它甘特图中的星号（在缓存中找到、无需预填充的 "
        "token）、命中率，以及 TTFT 的下降。"),

    "rm_source_shared_prompt": "共享同一系统提示",
    "rm_scenario_shared_prompt": (
        "八个问题每次迭代到达一个，前面都是同一条系统消息“{system}”：每个提示都以相同的字节开头（套用对话模板时，"
        "模板头也相同）。策略 2 开启前缀缓存：第一个请求计算共享的块，之后的请求在缓存中找到它们，直接读取同一批 "
        "KV 块（两张块表里是相同的块编号），只预填充自己的问题。策略 1 每次都预填充整个提示。"),
    "rm_prefix": (
        "**{label}**：在查询的 **{queried}** 个提示 token 中，前缀缓存命中 **{hit}** 个（**{rate}**），"
        "因此模型只预填充了 {prefilled} 个 token。"),
    "rm_prefix_ttft": (
        "实测 TTFT p50：无缓存（{without}）**{before}**，有缓存（{cached}）**{after}**，{change}："
        "命中前缀的请求只需预填充新增的部分。"),
    "m_prefix_hit_rate": "前缀缓存命中率（提示 token）",

    "col_read_rate": "读取速率",
    "help_read_rate": "客户端每个时间单位读取的 token 数（留空：来多少读多少）。",
    "col_disconnect_at": "客户端离开",
    "help_disconnect_at": "客户端何时离开（留空：一直在）。",
    "col_hash_ids": "哈希 ID",
    "help_hash_ids": (
        "提示的前缀块哈希，用空格分隔的整数（Mooncake 的 hash_ids）：ID 相同即 token 相同，前缀缓存因此可以"
        "共享它们。"),

    "sw_col_prefix_cache": "前缀缓存",
    "sw_col_hit_rate": "命中率",

    "cost_lpm_title": "缓存感知的排序：更多命中，谁在等待",
    "cost_lpm_named": (
        "最长前缀优先：命中率 {hit_fcfs} → {hit_lpm}；对话 TTFT p50 {chat_fcfs} → {chat_lpm}，独行请求 "
        "{loner_fcfs} → {loner_lpm}"),
    "cost_lpm_story": (
        "对话共享 {groups} 个系统提示之一，每个 {system} 个 token；每六个请求中有一个“独行”请求，其提示无人"
        "共享。KV 缓存（{blocks} 个 16 token 的块）放不下所有系统提示，两种策略都启用前缀缓存。**按到达顺序"
        "**时各组轮流进入，互相驱逐彼此的提示：缓存只找到 **{hit_fcfs}** 的提示 token。**最长前缀匹配**（"
        "SGLang 的 lpm）优先接纳缓存中已有最长前缀的等待请求，于是同一组在其提示仍在缓存时一起运行：找到 "
        "**{hit_lpm}**，对话的 TTFT p50 从 **{chat_fcfs}** 降到 **{chat_lpm}**。代价由独行请求承担：它们永"
        "远没有缓存前缀，一再被越过，TTFT p50 从 **{loner_fcfs}** 升到 **{loner_lpm}**。这就是饥饿；SGLang "
        "只在等待超过 128 个时退回到达顺序来加以限制。"),
    "cost_lpm_fcfs": "缓存，按到达顺序",
    "cost_lpm_lpm": "缓存，最长前缀优先",
    "cost_lpm_chats": "对话（共享系统提示）",
    "cost_lpm_loners": "独行请求（提示无人共享）",
    "cost_ttft_p50_axis": "TTFT p50（{unit}）",
    "cost_col_hit_rate": "命中率",
    "cost_col_chat_ttft": "对话 TTFT p50",
    "cost_col_loner_ttft": "独行 TTFT p50",

    # -- Tokenizer and chat template --
    "col_system": "系统消息",
    "col_messages": "消息列表",
    "help_text": "用户消息：用文字给出的 prompt。没有填 prompt 时，它的 UTF-8 字节数就是 prompt 的 token 数。",
    "help_system": "放在用户消息之前的系统消息（可选）。",
    "help_messages": '用一整段对话代替 text：[{"role": "user", "content": "..."}, ...]。',
    "prob_msg_not_json": "不是合法的 JSON：{detail}",
    "prob_msg_not_list": '必须是一个消息的 JSON 列表，每条形如 {{"role": ..., "content": ...}}',
    "prob_msg_bad_item": '第 {index} 条消息不是带 "role" 和 "content" 的对象',
    "prob_msg_bad_role": "第 {index} 条消息的角色是 {role}；角色只能是 system、user 或 assistant",
    "prob_msg_empty": "第 {index} 条消息的内容不是非空文本",
    "prob_msg_and_text": "已经给了一段对话，这一行却还有 text 或系统消息：二者只能给一种",
    "chat_title": "用文字给出的 prompt：chat template 与 tokenizer",
    "chat_intro": (
        "服务器从不按字符数计算 prompt。它先用模型的 **chat template** 把消息包装起来（角色标记、每轮的结束符、"
        "回答的开头），再由 **tokenizer** 把这段文本切成 token。切出来的数目，才是调度器准入时看的 prompt 长度，"
        "也是 prefill 预算要支付的量。输入一条消息，或从 trace 中选一个带文本的请求，比较两种 tokenizer。"),
    "chat_source": "消息",
    "chat_source_help": "在下面输入系统消息和用户消息，或者取上方 trace 中某个请求的消息。",
    "chat_source_typed": "在下面输入",
    "chat_source_row": "请求 {name}",
    "chat_system": "系统消息",
    "chat_system_help": "可选：放在用户消息之前的指令。留空表示没有。",
    "chat_user": "用户消息",
    "chat_example_system": "你是一个乐于助人的助手，回答要简短。",
    "chat_example_user": "用 Python 写一个反转列表的函数。",
    "chat_template": "对话模板（chat template）",
    "chat_template_help": "各模型家族的服务器怎样把多条消息拼成一段文本。",
    "chat_tpl_none": "无：文本原样使用",
    "chat_tpl_chatml": "ChatML（<|im_start|>）",
    "chat_tpl_llama3": "Llama 3（<|eot_id|>）",
    "chat_tpl_llama2": "Llama 2（[INST]）",
    "chat_tokenizer": "prompt 的计数方式",
    "chat_tokenizer_help": "按下方按钮时写入 trace 的就是这个计数。",
    "chat_tok_bytes": "字节（小模型的 tokenizer）",
    "chat_tok_classroom-bpe": "课堂 BPE（子词）",
    "chat_tokens": "{n} 个 token",
    "chat_templated": "**套用模板后的文本**（{chars} 个字符）：模型读到的就是它",
    "chat_bytes_note": (
        "每个 UTF-8 字节一个 token，共 256 个：一个 ASCII 字符占 1 字节，一个汉字占 3 字节"
        "（以十六进制字节显示，如 <E4>）。"),
    "chat_bpe_note": (
        "在小模型的语料（Python 标准库源码）上学出的字节级 BPE，共 {vocab} 个 token：常见的英文和 Python "
        "片段各占一个 token，模板的每个标记是一个特殊 token。"),
    "chat_shown_first": "只显示 {n} 个 token 中的前 {shown} 个。",
    "chat_ratio": "**{bytes} 个字节，对应 {bpe} 个 BPE token**：平均每个 BPE token {ratio} 个字节。",
    "chat_fallback": (
        "这里 {chars} 个非 ASCII 字符占 {bytes} 个字节、{bpe} 个 BPE token。这个 BPE 只在英文和 Python 上学习过，"
        "几乎没有学到其他文字的合并规则，只能退回到字节：差不多一个字节一个 token。用中文语料训练的 tokenizer，"
        "大多数汉字只占一个 token。"),
    "chat_empty": "输入一条用户消息（或系统消息），就能看到它的 token。",
    "chat_row_bad": "请求 {name} 的消息无法读取：{reason}",
    "chat_add": "作为新请求加入 trace，prompt 为 {n} 个 token",
    "chat_use": "把 {n} 个 token 用作请求 {name} 的 prompt",
    "chat_use_help": (
        "这个计数会写进 trace 的 prompt 列：调度器在 prompt 放得进 token 预算时才准入该请求，并 prefill 这么多 "
        "token。新请求的到达时间和输出长度可以在表格里修改。"),
    "chat_added": "已加入请求 {name}，prompt 为 {n} 个 token。",
    "chat_used": "请求 {name} 的 prompt 现在是 {n} 个 token。",
    "chat_leaves_out": (
        "没有模拟的部分：真实的 tokenizer 会把每个 token 换成词表中的 id；这里只关心个数和切分方式。"
        "小模型没有用任何模板训练过：它把这些标记当作普通字节来读。"),
    "rm_source_chats": "文字消息",
    "rm_template": "对话模板（chat template）",
    "rm_template_help": "用文字给出的请求会套用这个模板；模型 prefill 的正是套用模板后文本的字节。",
    "rm_bpe_tokens": "BPE token 数",
    "rm_bpe_tokens_help": "课堂 BPE 对同一段文本的计数，仅作对比：模型 prefill 的是字节。",
    "rm_prefilled": "模型实际 prefill 的 prompt",
    "rm_prefilled_note": (
        "模型是字节级的：它 prefill 的正是下面这些字节，一个字节一个 token，模板标记也不例外。"
        "课堂 BPE 的计数只作对比：这个模型读不了 BPE token。"),
    "rm_prefilled_one": "{name} · prefill 了 {bytes} 个字节 · {bpe} 个 BPE token",

    # -- The real model on many engines (issue 29: ui/model_fleet.py) --
    "router_least-tokens": "最少 token",
    "router_least-tokens_short": "最少 token",
    "rmf_title": "模型上的多台服务器",
    "rmf_intro": (
        "同样的 trace 和策略 2，由这个模型的多个引擎而不是一个来服务。这些引擎共享模型的权重，各有自己的分页 KV "
        "缓存。**并排部署**时，路由器把每个请求放到一个副本上。**预填充与解码分离**时，请求在预填充副本上预填充，"
        "由它产出第一个 token；随后它提示的 KV block 被复制到一个解码副本，由它产出其余 token。每次迭代和每次复制"
        "都是实测的。"),
    "rmf_layout": "集群",
    "rmf_layout_split": "预填充与解码分离",
    "rmf_layout_replicas": "副本并排",
    "rmf_prefill": "预填充副本",
    "rmf_prefill_help": "预填充每个请求并产出其第一个 token 的引擎。",
    "rmf_decode": "解码副本",
    "rmf_decode_help": "请求的 KV block 到达后产出其余 token 的引擎（选等待或运行中请求最少的那个）。",
    "rmf_latency": "传输延迟（ms）",
    "rmf_latency_help": "每次 KV 传输在实测复制之外多花的固定时间，如同一条网络链路。",
    "rmf_per_block": "每个 block 的传输（ms）",
    "rmf_per_block_help": "传输每移动一个 KV block 多花的时间，加在实测复制之上。",
    "rmf_replicas": "副本",
    "rmf_replicas_help": "相同的引擎，各用上面的预算。",
    "rmf_router": "路由器",
    "rmf_router_help": "请求到达时如何放置。前缀亲和需要策略 2 开启前缀缓存。",
    "rmf_split_first": "分离部署时，每个请求的第一个 token 由它的预填充副本产出：无论上面选的首 token 方式如何，这次运行都在那里采样。",
    "rmf_run": "在模型上运行集群",
    "rmf_press_run": "点击 **在模型上运行集群**，用策略 2 在这些引擎上服务这个 trace。",
    "rmf_running": "正在模型上运行集群…",
    "rmf_ran_split": "策略 2（{policy}）运行在模型的 {prefill} 个预填充副本和 {decode} 个解码副本上，{device}（{dtype}）：时间以 ms 实测。",
    "rmf_ran_replicas": "策略 2（{policy}）运行在模型的 {replicas} 个副本上，路由器为{router}，{device}（{dtype}）：时间以 ms 实测。",
    "rmf_tpot_p50": "TPOT p50",
    "rmf_throughput": "集群吞吐",
    "rmf_tokens_s": "token/s",
    "rmf_copies": "KV 复制",
    "rmf_copies_help": "把提示 block 复制出预填充副本的缓存、再复制进解码副本缓存所花的时间，所有复制相加。",
    "rmf_gantt": "集群的 {engines} 个引擎，实测：每个一个面板",
    "rmf_col_replica": "副本",
    "rmf_col_requests": "请求",
    "rmf_col_makespan": "总时长",
    "rmf_col_ttft": "TTFT p50",
    "rmf_ttft_decode": "在解码副本上，TTFT 是到请求第 2 个 token 的时间：那是它在那里生成的第一个。",
    "rmf_col_kv_peak": "KV 峰值（block）",
    "rmf_col_copy": "复制",
    "rmf_copy_send": "复制出预填充缓存",
    "rmf_copy_receive": "复制进解码缓存",
    "rmf_col_blocks": "block",
    "rmf_col_at": "时刻（所在副本的时钟）",
    "rmf_col_took": "耗时",
    "rmf_copies_story": (
        "**移动了 {n} 个请求。** 每个请求的提示 block 在产出其第一个 token 的那次迭代中被复制出预填充副本的缓存"
        "（在之后的预填充可能重用它们之前），并在解码副本接纳它时复制进该副本的缓存。这些复制共耗时 {total}，占集群"
        "忙碌时间的 {share}；在解码副本上最长的等待是 {wait}。"),
    "rmf_download": "下载这些复制（CSV）",
    "rmf_clocks": (
        "一个进程运行这些引擎，一次一个迭代，最落后的引擎先跑。每个引擎有自己的时钟，即其各次迭代实测时间之和，"
        "所以集群的计时如同每个引擎各有一个设备；以 ms 计的到达按这些时钟读取。复制经过主机内存中的一个存储，与 "
        "Mooncake 的做法相同。"),

    # -- Errors in the page's words, the two policies' names, what a preset sets (issue 26) --
    "policy_short_a": "P1",
    "policy_short_b": "P2",
    "cfg_policy_bad": "{policy}：{problem}",
    "cfg_field_policy": "批处理方式",
    "cfg_field_slo": "SLO 设置",
    "cfg_field_weights": "模型权重",
    "cfg_c_token": "c_token（毫秒/token 行）",
    "cfg_c_seq": "c_seq（毫秒/序列）",
    "cfg_c_key": "c_key（毫秒/序列 × KV 跨度）",
    "cfg_c_cell": "c_cell（毫秒/序列 × 块长 × KV 跨度）",
    "cfg_err_whole": "必须是不小于 {low} 的整数，实际为 {value}",
    "cfg_err_at_least": "必须是不小于 {low} 的数，实际为 {value}",
    "cfg_err_above": "必须是大于 {low} 的数，实际为 {value}",
    "cfg_err_at_least_at_most": "必须是 {low} 到 {high} 之间的数，实际为 {value}",
    "cfg_err_above_at_most": "必须大于 {low} 且不超过 {high}，实际为 {value}",
    "cfg_err_choice": "必须是 {choices} 之一，实际为 {value}",
    "cfg_err_no_time_linear": "一次 iteration 必须耗费一些时间：c0、c_prefill、c_decode 至少一个要大于 0",
    "cfg_err_no_time_profile": "一次 iteration 必须耗费一些时间：c0、c_token、c_seq 至少一个要大于 0",
    "cfg_err_no_fp8": "{hardware} 没有 fp8 张量核心：请用 bf16",
    "cfg_err_not_slo": "必须是 SLO 设置",
    "cfg_err_not_cost_model": "必须是成本模型",
    "cfg_err_not_moe": "必须是 MoE 设置",
    "cfg_err_not_bool": "只能是开或关",
    "cfg_err_quota_pairs": "必须是 租户=份额 的配对",
    "cfg_err_quota_name": "租户名必须是文本，实际为 {value}",
    "cfg_err_quota_twice": "同一个租户出现了两次",
    "cfg_err_quota_list": "请写成逗号分隔的 租户=份额，例如 vip=0.5, free=0.5",
    "cfg_err_buckets_whole": "必须是不小于 1 的整数",
    "cfg_err_buckets_order": "必须递增，每个大小只出现一次",
    "cfg_err_bucket_list": "请写成逗号分隔的 batch 大小，例如 1, 2, 4, 8",
    "cfg_err_continuous_only": "只适用于连续批处理",
    "cfg_err_release_needs_credits": "只在设置了流式额度时适用（只有那时请求才会被暂停）",
    "cfg_err_lpm_needs_cache": "最长前缀匹配按前缀缓存中找到的前缀排序：请打开前缀缓存",
    "cfg_err_cache_needs_kv": "前缀缓存把它的 block 放在 KV cache 里：请给 KV cache 设定大小",
    "cfg_err_split_first_token": "预填充/解码分离在预填充副本上采样第一个 token：请选择由预填充产生第一个 token",
    "cfg_err_split_whole_ticks": "以 tick 计时时，KV 传输需要整数个 tick：请用整数给出延迟和每个 block 的时间",
    "cfg_err_split_replaces_replicas": "预填充和解码引擎取代副本数：请把副本数保持为 1，或把预填充和解码引擎设为 0",
    "cfg_err_sweep_split_replicas": "分离部署的引擎数由其预填充和解码副本决定：请改为扫描预填充引擎数",
    "cfg_err_sweep_no_decode": "{engines} 个引擎的分离部署至少需要一个解码引擎，所以预填充引擎最多 {engines} − 1 个，实际为 {value}",
    "cfg_err_affinity_needs_cache": "前缀亲和路由读取每个副本的前缀缓存：请打开前缀缓存",
    "cfg_err_spec_over_budget": (
        "验证 {tokens} 个草稿 token 每个请求要花 {cost} 个 token-work，超过了 token 预算 {budget}"),
    "cfg_err_nano_budget": (
        "nano-vllm 在一步之内 prefill 被抢占请求的全部长度：预算必须容得下最长的请求，即 {longest} 个 token"),
    "cfg_err_preset_sets": "由 {preset} 预设决定（为 {value}）",
    "cfg_err_preset_needs_kv": "{preset} 预设把前缀缓存放在 KV cache 里：请给 KV cache 设定大小",
    "cfg_err_moe_too_many": "最多为 {most}，实际为 {value}",
    "cfg_err_moe_top_k": "每个 token 发往这么多个不同的专家，所以最多为 {experts}，实际为 {value}",
    "cfg_err_moe_devices": "{experts} 个专家要平均分到各个设备上：{devices} 不能整除它",
    "cfg_err_no_cuda": "这台机器上没有可用的 CUDA",
    "cfg_err_weights_missing": "缺少 {path}：请用 `python -m gpu_demo train` 训练",
    "cfg_err_weights_unreadable": "无法加载 {path}（{reason}）；请重新训练",
    "opt_by_preset": "由 {preset} 预设决定：这是它自己的规则，不是这个策略的选项。",
    "opt_allowed_by_preset": (
        "由 {preset} 预设决定，但它允许另一个取值：“只需首个 chunk”会关闭 vLLM 的 scheduler_reserve_full_isl，"
        "请求只要首个 chunk 的 block 空闲即可进入，而不必等整个 prompt 的 block。"),
    "preset_kv_cache": (
        "它的前缀缓存放在 KV cache 里：{blocks} 个 block，每个 {size} 个 token，见上方“{where}”。选择该预设时，"
        "若 KV cache 没有设定大小，会给它一个能容纳最长请求整批运行的大小。"),
    "lab_utilization_note": (
        "预算利用率不评判好坏：它统计的是实际计算的 token-work，一个为同样的回答计算得更少的策略（前缀缓存跳过"
        "已缓存的 prompt token；抢占更少，重算也更少）利用率更低，但服务并不更差。哪个服务得更好，看 makespan、"
        "吞吐和各项延迟。"),
    # Many servers
    "nav_fleet": "多台服务器",
    "home_link_planner": "规划集群：一条 trace 在 SLO 内需要多少块真实 GPU，各要多少成本",
    "home_link_many_servers": "多台服务器：请求去哪个副本，以及把预填充与解码分开",
    "fleet_title": "多台服务器：路由与预填充/解码分离",
    "fleet_about": "本页模拟了什么，怎样模拟",
    "fleet_intro": (
        "真实的服务是一个集群：同一个引擎的多个副本站在一个路由器后面。这里的每个副本都正是其他页面上的那个调度器，"
        "预算、KV cache 和选项都相同；变的只是请求去哪里。时间以毫秒计，采用线性延迟模型（c0 + c_prefill × 预填充 "
        "token + c_decode × 解码中的请求 + c_attn × 读取的上下文）。"),
    "fleet_running": "正在模拟这些集群…",
    "fleet_download": "下载此表（CSV）",
    "fleet_routing_title": "去哪个副本？路由与前缀缓存",
    "fleet_routing_story": (
        "{users} 个用户与 {replicas} 个副本对话；每一轮都把到目前为止的整段对话再发一遍，每个副本都缓存前缀。"
        "**轮询**（round-robin）按顺序分发，**最少请求**（least-requests）发给最空闲的副本，所以用户的下一轮很少"
        "落在缓存了这段对话的副本上：只有 {hit_rr} 的 prompt token 命中缓存。**前缀亲和**（prefix-affinity）把每一轮"
        "发给缓存了其最长前缀的副本：命中 {hit_affinity}，TTFT 中位数从 {ttft_rr} 降到 {ttft_affinity}。\n\n"
        "亲和也有代价。当所有请求都以同一个系统提示开头时，每个副本很快都缓存了它（命中 {hot_hit}），可亲和路由仍把"
        "请求发给最先持有它的副本，直到它比最空闲的副本多出 {cap_abs} 个以上请求、且忙 {cap_rel} 倍以上（SGLang 的负载上限）："
        "最忙的副本承担了 {hot_busiest} 倍于平均的请求，p99 TTFT 为 {hot_p99_affinity}，而最少请求只有 "
        "{hot_p99_lr}。"),
    "fleet_routing_chart": "对话：各路由器的 TTFT",
    "fleet_routing_named": "前缀命中 {hit_rr} → {hit_affinity}；TTFT p50 {ttft_rr} → {ttft_affinity}",
    "fleet_hot_chart": "一个热门系统提示：各路由器的 TTFT",
    "fleet_hot_named": "亲和的热点：TTFT p99 {hot_p99_lr}（最少请求）→ {hot_p99_affinity}",
    "fleet_ttft_p50": "TTFT p50",
    "fleet_ttft_p99": "TTFT p99",
    "fleet_ttft_axis": "TTFT（{unit}）",
    "fleet_gantt_routing": "3 个用户各 3 轮，3 个副本：{router}",
    "router_round-robin": "轮询",
    "router_round-robin_short": "轮询",
    "router_least-requests": "最少请求",
    "router_least-requests_short": "最少请求",
    "router_prefix-affinity": "前缀亲和",
    "router_prefix-affinity_short": "亲和",
    "fleet_col_hit_rate": "对话：前缀命中率",
    "fleet_col_ttft_p50": "对话：TTFT p50",
    "fleet_col_ttft_p99": "对话：TTFT p99",
    "fleet_col_hot_ttft_p99": "热门提示：TTFT p99",
    "fleet_col_hot_busiest": "热门提示：最忙副本的份额",
    "fleet_split_title": "把预填充与解码分开（DistServe）",
    "fleet_split_story": (
        "长 prompt（{shortest} 到 {longest} token），严格的 SLO：TTFT 不超过 {ttft}，TPOT 不超过 {tpot}。**并置**时，{replicas} "
        "个引擎都把预填充混进解码迭代里，一个 {longest} token 的预填充让每个解码请求停顿 {stall}：每秒 {at} 个请求时 TPOT "
        "p90 为 {tpot_colocated}。**分离**时，{half} 个引擎只做预填充，{half} 个只做解码；请求的第一个 token 产出后，"
        "它的 KV block 从一边传到另一边，解码副本从不等待 prompt：TPOT p90 为 {tpot_fast}。以 {target} 的请求满足 SLO "
        "为准，并置最多服务 {knee_colocated}，经快速链路（{fast} + 每个 block {fast_block}）的分离最多 "
        "{knee_fast}。\n\n"
        "分离的代价是传输，以及被划走的容量：{half} 个引擎要承担原来 {replicas} 个分担的预填充，每秒 {at} 个请求时 TTFT "
        "p90 从 {ttft_colocated} 升到 {ttft_fast}。经慢速链路（{slow} + 每个 {block} token 的 block {slow_block}）时，一个 "
        "{longest} token prompt 的 {blocks} 个 block 要 {slow_total} 才到，全部落在第一个和第二个 token 之间：{slow_verdict}。"),
    "fleet_split_chart": "有效吞吐与负载",
    "fleet_split_named": "拐点（≥ {target} 满足 SLO）：并置 {knee_colocated}，分离 {knee_fast}，慢速链路 {knee_slow}",
    "fleet_rate": "{rate} 请求/s",
    "fleet_no_knee": "无",
    "fleet_slow_none": "分离在任何负载下都守不住 SLO",
    "fleet_slow_knee": "分离只在 {knee} 以内守得住 SLO",
    "cfg_field_replicas": "副本数",
    "cfg_field_router": "路由器",
    "cfg_field_router_seed": "路由器种子",
    "cfg_field_prefill_replicas": "预填充副本数",
    "cfg_field_decode_replicas": "解码副本数",
    "cfg_field_kv_transfer_latency": "KV 传输延迟",
    "cfg_field_kv_transfer_per_block": "每个 block 的 KV 传输时间",
    "fleet_rate_axis": "到达率（请求/s）",
    "fleet_goodput_axis": "有效吞吐（满足 SLO 的请求/s）",
    "fleet_colocated": "4 个引擎并置",
    "fleet_colocated_short": "并置",
    "fleet_split_fast": "2 预填充 + 2 解码，快速链路",
    "fleet_split_fast_short": "分离",
    "fleet_split_slow": "2 预填充 + 2 解码，慢速链路",
    "fleet_split_slow_short": "分离·慢链路",
    "fleet_col_knee": "拐点（满足 SLO 的最高请求/s）",
    "fleet_col_tpot_p90": "TPOT p90",
    "fleet_col_ttft_p90": "TTFT p90",
    "fleet_col_attainment": "满足 SLO",
    "fleet_col_figure_at": "指标（{rate} 请求/s 时）",
    "fleet_gantt_split": "6 个请求，1 个预填充副本和 1 个解码副本：它们之间的 KV 传输",
    "fleet_panel_mixed": "副本 {index}",
    "fleet_panel_prefill": "副本 {index} · 预填充",
    "fleet_panel_decode": "副本 {index} · 解码",
    "fleet_panel_transfers": "KV 传输",
    "legend_transfer": "KV 传输",
    "hover_transfer": "<b>{name}</b> · KV 传输<br>{unit} {start} → {end}<br>{blocks} 个 block",
    "fleet_hidden_title": "这幅图省略了什么",
    "fleet_hidden": (
        "- 这里的路由器看到的是每个副本此刻的确切状态；真实的路由器读取的是有些延迟的引擎统计，或它自己维护的 radix "
        "树。\n- 传输之间不共享链路：无论同时有多少个，每个都用自己的时间。\n- 预填充副本在第一个 token 产出时就释放"
        "请求的 block；真实系统会保留到传输读完为止。\n- 在解码副本上，第一步输入第一个 token，画作一个 token 的预"
        "填充。\n- 延迟模型是线性的，与「代价」页相同。"),
}
