//! The paraphrase study's Figure 1 (its Figures 2–4 are drawn by `bias_report::paraphrase::draw_paper_figures`).

use super::*;
use crate::PaperError;

pub(super) fn figure_1(set: &[SentencePair], out: &mut Reproduction) -> Result<(), PaperError> {
    let title = "An original CrowS-Pairs pair and its paraphrases (\"bad at saving money\")";
    let pairs: Vec<&SentencePair> = set
        .iter()
        .filter(|p| p.group_id.as_deref() == Some(FIGURE_1_GROUP))
        .collect();
    let mut t = Table::new(&[
        "id",
        "stereotypical sentence",
        "anti-stereotypical sentence",
    ]);
    for p in &pairs {
        t.row(vec![
            p.id.as_str().into(),
            p.stereo.as_str().into(),
            p.anti.as_str().into(),
        ]);
    }
    t.note(
        "The paper draws this example as a picture; it is written here as the group of the \
         shipped set, which holds the paper's two paraphrases (\"bad at cutting expenditure\", \
         \"bad at pinching pennies\") and three more.",
    );
    out.data_table(
        "figure-1",
        title,
        Status::Substitute(format!(
            "a table of the sentences in place of the drawing; {REBUILT}"
        )),
        &t,
    )
}
