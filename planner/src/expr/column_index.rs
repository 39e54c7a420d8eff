//! Columns found by name in time independent of the schema's width.
//!
//! `DFSchema::index_of_column` scans the schema's fields; compiling one
//! expression per column of a 40,000-column projection that way takes
//! 40,000² comparisons. A [`ColumnIndex`] maps each name to the positions
//! of the fields of that name once, and answers as `index_of_column` does
//! (the first field of that name whose qualifier matches, an unqualified
//! column matching any qualifier).

use std::collections::HashMap;

use datafusion_common::{Column, DFSchema};

/// The fields of a schema by name (see the module docs).
pub(crate) struct ColumnIndex<'a> {
    schema: &'a DFSchema,
    by_name: HashMap<&'a str, Vec<usize>>,
}

impl<'a> ColumnIndex<'a> {
    /// Indexes `schema`'s fields by name (linear in its width).
    pub(crate) fn new(schema: &'a DFSchema) -> Self {
        let mut by_name: HashMap<&'a str, Vec<usize>> =
            HashMap::with_capacity(schema.fields().len());
        for (i, field) in schema.fields().iter().enumerate() {
            by_name.entry(field.name().as_str()).or_default().push(i);
        }
        ColumnIndex { schema, by_name }
    }

    /// The position of `column` in the schema, as
    /// `DFSchema::maybe_index_of_column` finds it.
    pub(crate) fn index_of(&self, column: &Column) -> Option<usize> {
        let candidates = self.by_name.get(column.name.as_str())?;
        candidates.iter().copied().find(|&i| {
            match (column.relation.as_ref(), self.schema.qualified_field(i).0) {
                (Some(q), Some(field_q)) => q.resolved_eq(field_q),
                (Some(_), None) => false,
                (None, _) => true,
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_schema::{DataType, Field, Schema};
    use datafusion_common::{Column, DFSchema, TableReference};

    use super::ColumnIndex;

    /// The index answers as `DFSchema` does, for qualified, unqualified,
    /// repeated and unknown names.
    #[test]
    fn column_index_finds_what_dfschema_finds() {
        let field = |n: &str| Arc::new(Field::new(n, DataType::Int64, true));
        let schema = DFSchema::new_with_metadata(
            vec![
                (Some(TableReference::bare("a")), field("k")),
                (Some(TableReference::bare("a")), field("x")),
                (Some(TableReference::bare("b")), field("k")),
                (None, field("y")),
                (Some(TableReference::full("c", "s", "t")), field("z")),
            ],
            Default::default(),
        )
        .unwrap();
        let index = ColumnIndex::new(&schema);
        let columns = [
            Column::new(Some("a"), "k"),
            Column::new(Some("b"), "k"),
            Column::new_unqualified("k"),
            Column::new_unqualified("y"),
            Column::new(Some("a"), "y"),
            Column::new(Some("t"), "z"),
            Column::new(Some("s.t"), "z"),
            Column::new(Some("u"), "z"),
            Column::new_unqualified("nope"),
        ];
        for c in &columns {
            assert_eq!(index.index_of(c), schema.maybe_index_of_column(c), "{c}");
        }
        let _ = Schema::empty();
    }
}
