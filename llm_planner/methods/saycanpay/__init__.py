"""SayCanPay (Hazra, Zuidberg Dos Martires, De Raedt, AAAI 2024; seed 004) on the household
domain: Say (the language model's top-m candidate actions with probabilities), Can (a feasibility
model trained on expert trajectories with the seed's negatives, §6.1; or the exact precondition
check as an oracle variant) and Pay (a payoff regressor on discounted rewards, §6.2), combined by
Greedy-Action and Beam-Action decoding (§5). ``questions`` registers Say's question
(``candidate_actions``), ``formats`` holds the Can/Pay input format, ``features`` the Sentence-BERT
features, ``models`` the small heads, ``training`` §6, ``decoding`` §4-5. The planner ``saycanpay``
(``llm_planner.methods.saycanpay.planner``), ``llm-planner train saycanpay`` and
``llm-planner bench saycanpay`` use them."""
